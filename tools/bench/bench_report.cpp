#include "tools/bench/bench_report.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "engine/api/engine.h"
#include "engine/io/file_util.h"

namespace fs = std::filesystem;

namespace ie::cli {

namespace {

constexpr double kNoisyCv = 0.05;  // coefficient of variation above which a result is flagged

nlohmann::json stats_json(const LatencyStats& s) {
  return {{"runs", s.runs},  {"p50_ms", s.p50}, {"p90_ms", s.p90},   {"p99_ms", s.p99},
          {"max_ms", s.max}, {"min_ms", s.min}, {"mean_ms", s.mean}, {"cv", s.cv}};
}

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);  // gnuplot's single-quote escape
  return q + "'";
}

}  // namespace

std::string bench_header(const BenchReport& r, const std::string& path) {
  std::ostringstream o;
  o << "== bench: " << r.name << " (" << r.model << ") on " << path << ", precision " << r.precision << "\n";
  o << "revision " << r.git_revision << "; warm-up " << r.warmup << ", timing " << r.timing << ", " << r.sets
    << " rotated random input sets (seed " << r.seed << ")\n";
  auto it = r.devices.find(path);
  if (it != r.devices.end())
    for (auto& [k, v] : it->second) o << "  " << k << ": " << v << "\n";
  o << std::right << std::setw(8) << "batch"
    << " | " << std::setw(10) << "p50 ms" << std::setw(10) << "p90 ms" << std::setw(10) << "p99 ms" << std::setw(10)
    << "max ms" << std::setw(10) << "mean ms" << std::setw(7) << "cv%" << std::setw(14) << "samples/s"
    << " | " << std::setw(10) << "e2e p50" << std::setw(14) << "e2e samples/s" << std::setw(10) << "h2d ms"
    << std::setw(10) << "comp ms" << std::setw(10) << "d2h ms" << " | " << std::setw(10) << "stream ms"
    << std::setw(14) << "str samples/s"
    << "\n";
  return o.str();
}

std::string bench_line(const BenchResult& r) {
  std::ostringstream o;
  o << std::right << std::setw(8) << r.batch << " | ";
  if (r.status != "ok") {
    o << "skipped: " << r.reason << "\n";
    return o.str();
  }
  const LatencyStats& c = r.compute;
  o << std::fixed << std::setprecision(4) << std::setw(10) << c.p50 << std::setw(10) << c.p90 << std::setw(10) << c.p99
    << std::setw(10) << c.max << std::setw(10) << c.mean << std::setprecision(1) << std::setw(7) << 100 * c.cv
    << std::setprecision(0) << std::setw(14) << r.throughput() << " | " << std::setprecision(4) << std::setw(10)
    << r.end_to_end.p50 << std::setprecision(0) << std::setw(14) << r.throughput_e2e() << std::setprecision(4)
    << std::setw(10) << r.h2d_ms << std::setw(10) << r.compute_phase_ms << std::setw(10) << r.d2h_ms << " | "
    << std::setw(10) << r.streamed_ms << std::setprecision(0) << std::setw(14) << r.throughput_streamed() << "\n";
  for (auto [what, s] : {std::make_pair("compute-only", &r.compute), std::make_pair("end-to-end", &r.end_to_end)})
    if (s->cv > kNoisyCv)
      o << "         warning: " << what << " latency varies by " << std::setprecision(1) << 100 * s->cv
        << "% (coefficient of variation > 5%); the figures are noisy\n";
  return o.str();
}

nlohmann::json bench_json(const BenchReport& r) {
  nlohmann::json devices = nlohmann::json::object();
  for (auto& [path, facts] : r.devices) {
    nlohmann::json d = nlohmann::json::object();
    for (auto& [k, v] : facts) d[k] = v;
    devices[path] = d;
  }
  nlohmann::json results = nlohmann::json::array();
  for (auto& x : r.results) {
    nlohmann::json j = {{"path", x.path}, {"batch", x.batch}, {"status", x.status}};
    if (x.status == "ok") {
      j["compute_only"] = stats_json(x.compute);
      j["compute_only"]["throughput_samples_per_s"] = x.throughput();
      j["end_to_end"] = stats_json(x.end_to_end);
      j["end_to_end"]["throughput_samples_per_s"] = x.throughput_e2e();
      j["end_to_end"]["h2d_ms"] = x.h2d_ms;
      j["end_to_end"]["compute_ms"] = x.compute_phase_ms;
      j["end_to_end"]["d2h_ms"] = x.d2h_ms;
      if (x.streamed_ms > 0)
        j["streamed"] = {{"ms_per_batch", x.streamed_ms},
                         {"throughput_samples_per_s", x.throughput_streamed()},
                         {"in_flight", x.in_flight},
                         {"devices", x.devices}};
      j["throughput_samples_per_s"] = x.throughput();
      if (!x.profile.is_null()) j["profile"] = x.profile;
    } else {
      j["reason"] = x.reason;
    }
    results.push_back(j);
  }
  return {{"tool", "bench"},
          {"model", r.model},
          {"name", r.name},
          {"precision", r.precision},
          {"git_revision", r.git_revision},
          {"seed", r.seed},
          {"input_sets", r.sets},
          {"timing", r.timing},
          {"warmup", r.warmup},
          {"devices", devices},
          {"results", results}};
}

BenchReport bench_from_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object() || !j.contains("results") || !j["results"].is_array())
    throw Error(ErrorKind::BadInput, what + ": not a bench JSON report (no 'results' list)");
  auto stats = [](const nlohmann::json& s) {
    LatencyStats l;
    l.runs = s.value("runs", 0);
    l.p50 = s.value("p50_ms", 0.0);
    l.p90 = s.value("p90_ms", 0.0);
    l.p99 = s.value("p99_ms", 0.0);
    l.max = s.value("max_ms", 0.0);
    l.min = s.value("min_ms", 0.0);
    l.mean = s.value("mean_ms", 0.0);
    l.cv = s.value("cv", 0.0);
    return l;
  };
  BenchReport r;
  r.model = j.value("model", "");
  r.name = j.value("name", "");
  r.precision = j.value("precision", "");
  for (auto& x : j["results"]) {
    BenchResult b;
    b.path = x.value("path", "");
    b.batch = x.value("batch", int64_t(0));
    b.status = x.value("status", "ok");
    if (b.status == "ok") {
      if (!x.contains("compute_only")) throw Error(ErrorKind::BadInput, what + ": a result has no 'compute_only'");
      b.compute = stats(x["compute_only"]);
      if (x.contains("end_to_end")) b.end_to_end = stats(x["end_to_end"]);
      if (x.contains("streamed")) {
        b.streamed_ms = x["streamed"].value("ms_per_batch", 0.0);
        b.in_flight = x["streamed"].value("in_flight", 0);
        b.devices = x["streamed"].value("devices", 1);
      }
    } else {
      b.reason = x.value("reason", "");
    }
    r.results.push_back(b);
  }
  return r;
}

std::string bench_csv(const BenchReport& r) {
  std::ostringstream o;
  o << "path,batch,status,compute_p50_ms,compute_p90_ms,compute_p99_ms,compute_max_ms,compute_mean_ms,compute_cv,"
       "throughput_samples_per_s,e2e_p50_ms,e2e_p90_ms,e2e_p99_ms,e2e_max_ms,e2e_mean_ms,e2e_cv,"
       "e2e_throughput_samples_per_s,h2d_ms,compute_ms,d2h_ms,streamed_ms_per_batch,streamed_samples_per_s,in_flight,"
       "reason\n";
  o << std::setprecision(9);
  auto stats = [&](const LatencyStats& s) {
    o << "," << s.p50 << "," << s.p90 << "," << s.p99 << "," << s.max << "," << s.mean << "," << s.cv;
  };
  for (auto& x : r.results) {
    o << x.path << "," << x.batch << "," << x.status;
    if (x.status == "ok") {
      stats(x.compute);
      o << "," << x.throughput();
      stats(x.end_to_end);
      o << "," << x.throughput_e2e() << "," << x.h2d_ms << "," << x.compute_phase_ms << "," << x.d2h_ms << ","
        << x.streamed_ms << "," << x.throughput_streamed() << "," << x.in_flight << ",";
    } else {
      o << ",,,,,,,,,,,,,,,,,,,,";
      std::string reason = x.reason;
      for (char& c : reason)
        if (c == '"' || c == '\n') c = '\'';
      o << ",\"" << reason << "\"";
    }
    o << "\n";
  }
  return o.str();
}

void plot_bench(const BenchReport& r, const std::string& file, std::ostream& warn) {
  const std::string ext = fs::path(file).extension().string();
  if (ext != ".png" && ext != ".svg") {
    warn << "bench: warning: --plot " << file << ": expected a .png or .svg file name; no plot written\n";
    return;
  }
  const std::string gnuplot = find_on_path("gnuplot");
  if (gnuplot.empty()) {
    warn << "bench: warning: gnuplot is not installed (Debian package gnuplot-nox, see tools/install_deps.sh); "
            "skipping the plot "
         << file << "\n";
    return;
  }
  // One data block per path: batch, p50 latency, throughput (compute-only), e2e throughput.
  fs::path dir = fs::temp_directory_path() / ("ie-bench-plot-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::vector<std::string> paths;
  for (auto& x : r.results)
    if (std::find(paths.begin(), paths.end(), x.path) == paths.end()) paths.push_back(x.path);
  std::ostringstream lat, thr;
  for (size_t i = 0; i < paths.size(); ++i) {
    fs::path data = dir / ("path" + std::to_string(i) + ".dat");
    std::ofstream d(data);
    d << std::setprecision(9);
    bool has_e2e = false;  // reports merged from other tools (e.g. PyTorch) may carry compute-only figures
    for (auto& x : r.results)
      if (x.path == paths[i] && x.status == "ok") {
        d << x.batch << " " << x.compute.p50 << " " << x.throughput() << " " << x.throughput_e2e() << "\n";
        has_e2e |= x.throughput_e2e() > 0;
      }
    std::string sep = i ? ", " : "";
    lat << sep << quoted(data.string()) << " using 1:2 with linespoints title " << quoted(paths[i]);
    thr << sep << quoted(data.string()) << " using 1:3 with linespoints title " << quoted(paths[i] + " compute");
    if (has_e2e)
      thr << ", " << quoted(data.string()) << " using 1:4 with linespoints dashtype 2 title "
          << quoted(paths[i] + " end-to-end");
  }
  fs::path script = dir / "plot.gp";
  {
    std::ofstream g(script);
    g << (ext == ".svg" ? "set terminal svg size 1200,500 dynamic\n" : "set terminal pngcairo size 1200,500\n");
    g << "set output " << quoted(file) << "\n";
    g << "set termoption noenhanced\n";  // names like channels_last are plain text, not subscripts
    std::string revision = r.git_revision.empty() ? "" : ", " + r.git_revision;
    g << "set multiplot layout 1,2 title " << quoted(r.name + " (" + r.precision + revision + ")")
      << "\nset logscale x 10\nset logscale y 10\nset grid\nset key left top\nset xlabel 'batch size'\n";
    g << "set ylabel 'p50 latency (ms)'\nset title 'compute-only latency'\nplot " << lat.str() << "\n";
    g << "set ylabel 'samples/s'\nset title 'throughput'\nplot " << thr.str() << "\nunset multiplot\n";
  }
  std::string cmd = "'" + gnuplot + "' '" + script.string() + "' 2>&1";
  std::string output;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) output += buf;
    int status = pclose(p);
    if (status != 0 || !fs::exists(file))
      warn << "bench: warning: gnuplot failed to write " << file << ": " << output << "\n";
  } else {
    warn << "bench: warning: cannot run gnuplot; skipping the plot " << file << "\n";
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

std::vector<std::string> compare_baseline(const BenchReport& r, const std::string& baseline_path, double threshold,
                                          std::ostream& out) {
  std::ifstream in(baseline_path);
  if (!in) throw Error(ErrorKind::BadInput, "cannot open the baseline " + baseline_path);
  nlohmann::json base;
  try {
    in >> base;
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::BadInput, baseline_path + ": not a bench JSON file (" + e.what() + ")");
  }
  if (!base.contains("results") || !base["results"].is_array())
    throw Error(ErrorKind::BadInput, baseline_path + ": no \"results\" array (expected bench --json output)");
  std::vector<std::string> regressions;
  int matched = 0;
  for (auto& x : r.results) {
    if (x.status != "ok") continue;
    for (auto& b : base["results"]) {
      if (b.value("path", "") != x.path || b.value("batch", int64_t(-1)) != x.batch || b.value("status", "") != "ok")
        continue;
      ++matched;
      const double old_tp = b.value("throughput_samples_per_s", 0.0), new_tp = x.throughput();
      const double change = old_tp > 0 ? new_tp / old_tp - 1.0 : 0.0;
      const bool slower = old_tp > 0 && new_tp < old_tp * (1.0 - threshold);
      out << "baseline " << x.path << " batch " << x.batch << ": " << std::fixed << std::setprecision(0) << old_tp
          << " -> " << new_tp << " samples/s (" << std::showpos << std::setprecision(1) << 100 * change
          << std::noshowpos << "%)" << (slower ? "  REGRESSION" : "") << "\n";
      if (slower) regressions.push_back(x.path + "@" + std::to_string(x.batch));
    }
  }
  if (!matched) out << "baseline " << baseline_path << ": no (path, batch) pair in common\n";
  return regressions;
}

}  // namespace ie::cli
