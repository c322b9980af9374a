// bench: sweeps batch sizes over one or more backend paths and reports latency and throughput, compute-only
// (inputs already on the device), end to end (host -> device -> host, split into H2D / compute / D2H), and
// streamed (batches in flight through ie::Pipeline: one uploads while another computes and a third downloads).
// trtexec is the anchor: warm-up and iterations by count or time, percentiles, coefficient of variation.
//
//   bench --config configs/convnet.yaml --paths cpu,cuda-reference --json bench.json --plot bench.png
//   bench --config configs/ssa.yaml --batches 1,512 --iterations 50 --profile
//   bench --config configs/ssa.yaml --baseline old.json --threshold 0.1     # exit 5 on a regression
//
// Inputs are seeded random data rotated among --sets (>= 3) input sets, so caches do not flatter the figures.
// Exit codes: 0 ok; 2 usage; 3 bad input; 4 CUDA failure; 5 slower than the baseline.
#include <chrono>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/api/pipeline.h"
#include "engine/io/file_util.h"
#include "tools/bench/bench_report.h"
#include "tools/common/cli.h"
#include "tools/common/model_source.h"
#include "tools/common/profile_table.h"
#include "tools/common/random_inputs.h"
#include "tools/common/stats.h"
#include "tools/common/system_info.h"

using ie::Error;
using ie::ErrorKind;
using ie::Tensor;
using TensorMap = std::map<std::string, Tensor>;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  ie::cli::ModelSource source;
  std::string paths = "auto", batches, precision = "fp32", json, csv, plot, baseline, devices;
  int warmup = -1, iterations = -1, sets = 3, threads = 0, in_flight = 2;
  double warmup_ms = 200, duration_ms = 2000, threshold = 0.10;
  uint64_t seed = 0;
  bool profile = false, no_fuse = false, no_graph = false, remeasure_peaks = false;
  ie::Limits limits;
};

constexpr int kMinTimedRuns = 5;  // a time-bound run still gets this many samples

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) items.push_back(item);
  return items;
}

// Defaults by model: the conv net's batches reach the whole test set, the SSA's the sizes spectra come in.
std::vector<int64_t> default_batches(const std::string& name) {
  if (name.find("ssa") != std::string::npos) return {1, 32, 512, 4096, 65536};
  if (name.find("conv") != std::string::npos) return {1, 16, 128, 1000, 10000, 50000};
  return {1, 16, 128};
}

std::vector<int64_t> parse_batches(const Args& a) {
  if (a.batches.empty()) return default_batches(a.source.name());
  std::vector<int64_t> out;
  for (auto& item : split_list(a.batches)) {
    auto shape = ie::cli::parse_shape(item, "--batches");
    if (shape.size() != 1 || shape[0] < 1)
      throw Error(ErrorKind::Usage, "--batches: '" + item + "' is not a batch size");
    out.push_back(shape[0]);
  }
  if (out.empty()) throw Error(ErrorKind::Usage, "--batches is empty");
  return out;
}

// Runs `fn` (returning one latency in ms) for the warm-up and the timed phase, by count or by time.
template <class Fn>
std::vector<double> timed_loop(const Args& a, Fn&& fn) {
  auto start = Clock::now();
  auto elapsed_ms = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); };
  if (a.warmup >= 0) {
    for (int i = 0; i < a.warmup; ++i) fn(i);
  } else {
    for (int i = 0; i == 0 || elapsed_ms() < a.warmup_ms; ++i) fn(i);
  }
  std::vector<double> ms;
  start = Clock::now();
  for (int i = 0;; ++i) {
    if (a.iterations >= 0 ? i >= a.iterations : (i >= kMinTimedRuns && elapsed_ms() >= a.duration_ms)) break;
    ms.push_back(fn(i));
  }
  return ms;
}

bool is_out_of_memory(const std::string& what) {
  for (const char* needle : {"out of memory", "cannot allocate", "bad_alloc", "cudaErrorMemoryAllocation"})
    if (what.find(needle) != std::string::npos) return true;
  return false;
}

// Batches in flight through ie::Pipeline over the same page-locked input sets, outputs into page-locked buffers
// reused in turn: milliseconds per batch from the first output to the last (the ramp-up is left out). As many
// batches as the end-to-end latency says fit in the timed duration (or --iterations).
double streamed_ms_per_batch(const Args& a, const ie::Engine& engine, const std::vector<TensorMap>& sets, double e2e_ms,
                             int* in_flight, int* devices) {
  ie::PipelineOptions options;
  options.depth = a.in_flight;
  ie::Pipeline pipeline(engine, options);
  *in_flight = static_cast<int>(pipeline.sessions());
  *devices = static_cast<int>(pipeline.devices());
  pipeline.prepare({sets[0]});
  size_t count =
      a.iterations >= 0
          ? static_cast<size_t>(a.iterations)
          : static_cast<size_t>(a.duration_ms / std::max(e2e_ms, 1e-3) * static_cast<double>(1 + pipeline.devices()));
  count = std::min<size_t>(std::max<size_t>(count, 2 * kMinTimedRuns), 100000);
  std::vector<std::vector<Tensor>> buffers(pipeline.sessions() + 1);
  Clock::time_point first, last;
  pipeline.run(
      [&](size_t i, TensorMap& inputs) {
        if (i >= count) return false;
        inputs = sets[i % sets.size()];
        return true;
      },
      [&](size_t i, std::vector<Tensor>&) { (i == 0 ? first : last) = Clock::now(); },
      [&](size_t i, const std::vector<ie::TensorDecl>& outs) {
        auto& mine = buffers[i % buffers.size()];
        if (mine.empty())
          for (auto& o : outs) mine.push_back(pipeline.allocate_host_tensor(o.dtype, o.dims));
        return mine;
      });
  return std::chrono::duration<double, std::milli>(last - first).count() / static_cast<double>(count - 1);
}

ie::cli::BenchResult bench_one(const Args& a, ie::Engine& engine, const std::string& path, int64_t batch,
                               const ie::Options& opts) {
  ie::cli::BenchResult r;
  r.path = path;
  r.batch = batch;
  try {
    // Input sets in the backend's fastest host memory (page-locked on GPUs), as a careful application keeps them.
    std::vector<TensorMap> sets;
    {
      // A fresh session per batch size, so the memory of the previous (larger) plan is released.
      ie::Session session = engine.create_session();
      for (int k = 0; k < a.sets; ++k) {
        TensorMap set = ie::cli::random_inputs(engine.inputs(), batch, a.seed + static_cast<uint64_t>(k) * 7919);
        for (auto& [name, t] : set) {
          ie::Tensor host = session.allocate_host_tensor(t.dtype(), t.shape());
          std::memcpy(host.data(), t.data(), t.nbytes());
          t = host;
        }
        sets.push_back(std::move(set));
      }
      session.run_ordered(sets[0]);  // plans once, outside every timed phase

      // Compute-only: inputs staged on the device once, each run copies one set device-to-device and runs the steps.
      std::vector<size_t> staged;
      for (auto& s : sets) staged.push_back(session.stage_inputs(s));
      std::vector<double> compute =
          timed_loop(a, [&](int i) { return session.run_staged(staged[i % staged.size()]).compute_ms; });
      session.clear_staged();
      r.compute = ie::cli::summarize(compute);

      // End to end: host inputs in, outputs back on the host; the phases come from the backend's timer.
      std::vector<double> h2d, mid, d2h;
      std::vector<double> e2e = timed_loop(a, [&](int i) {
        ie::RunTiming t;
        session.run_timed(sets[i % sets.size()], &t);
        h2d.push_back(t.load_ms);
        mid.push_back(t.compute_ms);
        d2h.push_back(t.fetch_ms);
        return t.wall_ms;
      });
      r.end_to_end = ie::cli::summarize(e2e);
      const size_t warm = h2d.size() - e2e.size();  // drop the warm-up runs' phases
      r.h2d_ms = ie::cli::median({h2d.begin() + warm, h2d.end()});
      r.compute_phase_ms = ie::cli::median({mid.begin() + warm, mid.end()});
      r.d2h_ms = ie::cli::median({d2h.begin() + warm, d2h.end()});
      r.status = "ok";

      if (a.profile) {
        std::cout << "\n[" << path << ", batch " << batch << "] ";
        ie::cli::ProfilePass pass;
        pass.remeasure_peaks = a.remeasure_peaks;
        r.profile = ie::cli::run_profile_pass(session, sets[0], opts, pass, std::cout);
      }
    }
    // The session above is released first: the pipeline's sessions need arenas of their own. Where the device
    // cannot hold them, the streamed figure stays 0 and the others stand.
    try {
      r.streamed_ms = streamed_ms_per_batch(a, engine, sets, r.end_to_end.p50, &r.in_flight, &r.devices);
    } catch (const Error& e) {
      if (!is_out_of_memory(e.what())) throw;
    }
  } catch (const std::bad_alloc&) {
    r.status = "skipped";
    r.reason = "out of host memory";
  } catch (const Error& e) {
    if (!is_out_of_memory(e.what())) throw;
    r.status = "skipped";
    r.reason = e.what();
  }
  return r;
}

int run(Args& a) {
  a.source.validate();
  if (a.sets < 3) throw Error(ErrorKind::Usage, "--sets must be >= 3 so the cache does not flatter the figures");
  if (a.threshold < 0) throw Error(ErrorKind::Usage, "--threshold must be >= 0");
  const std::vector<int64_t> batches = parse_batches(a);
  std::vector<std::string> paths = split_list(a.paths);
  if (paths.empty()) throw Error(ErrorKind::Usage, "--paths is empty");

  ie::cli::BenchReport report;
  report.model = a.source.onnx_path();
  report.name = a.source.name();
  report.precision = a.precision;
  report.git_revision = ie::cli::git_revision();
  report.seed = a.seed;
  report.sets = a.sets;
  report.timing = a.iterations >= 0 ? std::to_string(a.iterations) + " iterations"
                                    : "time-bound " + std::to_string(static_cast<int>(a.duration_ms)) + " ms";
  report.warmup =
      a.warmup >= 0 ? std::to_string(a.warmup) + " runs" : std::to_string(static_cast<int>(a.warmup_ms)) + " ms";
  for (auto& p : paths) {
    ie::Options opts;
    opts.backend = p;
    opts.precision = ie::precision_from_name(a.precision);
    opts.threads = a.threads;
    opts.fuse = !a.no_fuse;
    opts.cuda_graphs = !a.no_graph;
    opts.limits = a.limits;
    opts.devices = ie::cli::devices_from_text(a.devices, ie::resolve_backend_name(p));
    ie::Engine engine = a.source.load(opts);
    const std::string path = engine.backend();
    report.devices[path] = ie::cli::device_info(path, opts);
    std::cout << ie::cli::bench_header(report, path);
    for (int64_t batch : batches) {
      ie::cli::BenchResult r = bench_one(a, engine, path, batch, opts);
      std::cout << ie::cli::bench_line(r) << std::flush;
      report.results.push_back(r);
    }
  }
  if (!a.json.empty()) {
    ie::AtomicFileWriter out(a.json);
    out.write(ie::cli::bench_json(report).dump(2) + "\n");
    out.commit();
  }
  if (!a.csv.empty()) {
    ie::AtomicFileWriter out(a.csv);
    out.write(ie::cli::bench_csv(report));
    out.commit();
  }
  if (!a.plot.empty()) ie::cli::plot_bench(report, a.plot, std::cerr);
  if (!a.baseline.empty()) {
    auto regressions = ie::cli::compare_baseline(report, a.baseline, a.threshold, std::cout);
    if (!regressions.empty()) {
      std::cerr << "bench: " << regressions.size() << " (path, batch) throughput regression"
                << (regressions.size() > 1 ? "s" : "") << " beyond " << a.threshold * 100 << "% against " << a.baseline
                << "\n";
      return static_cast<int>(ErrorKind::Regression);
    }
  }
  return 0;
}

}  // namespace

// --replot: one plot from earlier --json files (e.g. the engine's and tools/torch_bench.py's), no new runs.
int replot(const std::vector<std::string>& files, const std::string& plot) {
  if (plot.empty()) throw Error(ErrorKind::Usage, "--replot needs --plot FILE");
  ie::cli::BenchReport merged;
  for (auto& f : files) {
    std::ifstream in(f);
    if (!in) throw Error(ErrorKind::BadInput, f + ": cannot be opened");
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw Error(ErrorKind::BadInput, f + ": invalid JSON: " + e.what());
    }
    auto r = ie::cli::bench_from_json(j, f);
    if (merged.name.empty())
      merged = r;
    else
      merged.results.insert(merged.results.end(), r.results.begin(), r.results.end());
  }
  ie::cli::plot_bench(merged, plot, std::cerr);
  return std::ifstream(plot) ? 0 : static_cast<int>(ErrorKind::BadInput);
}

int main(int argc, char** argv) {
  CLI::App app{"Latency and throughput of a model over batch sizes and backend paths"};
  Args a;
  a.source.add_options(app);  // the config's name picks the default batch sizes
  app.add_option("--paths", a.paths, "comma-separated backends: cpu, cuda-reference, cuda, auto");
  app.add_option("--batches", a.batches, "comma-separated batch sizes (default by model)");
  ie::cli::add_precision_option(app, &a.precision);
  auto* warm_n =
      app.add_option("--warmup", a.warmup, "untimed runs before timing")->check(ie::cli::at_least(0, "--warmup"));
  app.add_option("--warmup-ms", a.warmup_ms, "untimed warm-up time (default 200 ms)")->excludes(warm_n);
  auto* iters =
      app.add_option("--iterations", a.iterations, "timed runs per mode")->check(ie::cli::at_least(1, "--iterations"));
  app.add_option("--duration-ms", a.duration_ms, "timed duration per mode (default 2000 ms, at least 5 runs)")
      ->excludes(iters);
  app.add_option("--in-flight", a.in_flight, "batches in flight in the streamed figure (GPU backends)")
      ->check(CLI::Range(1, 16));
  app.add_option("--sets", a.sets, "input sets rotated through the runs (>= 3)");
  app.add_option("--seed", a.seed, "seed of the random inputs");
  ie::cli::add_devices_option(app, &a.devices);
  ie::cli::add_threads_option(app, &a.threads);
  ie::cli::add_max_memory_option(app, &a.limits);
  app.add_flag("--no-fuse", a.no_fuse, "run without fusion rules");
  app.add_flag("--no-graph", a.no_graph, "run the steps one by one instead of replaying them as a CUDA graph");
  app.add_flag("--profile", a.profile, "per-op table per (path, batch), in a pass separate from the headline runs");
  app.add_flag("--remeasure-peaks", a.remeasure_peaks, "measure the device peaks again (ignore the cache)");
  app.add_option("--json", a.json, "write the results as JSON");
  app.add_option("--csv", a.csv, "write the results as CSV");
  app.add_option("--plot", a.plot, "plot latency and throughput against batch size (.png or .svg, needs gnuplot)");
  app.add_option("--baseline", a.baseline, "earlier --json: exit 5 when a matching throughput is slower");
  app.add_option("--threshold", a.threshold, "allowed slowdown against the baseline (default 0.10 = 10%)");
  std::vector<std::string> replot_files;
  app.add_option("--replot", replot_files, "draw --plot from earlier --json files instead of running");
  IE_CLI_PARSE(app, argc, argv);
  if (!replot_files.empty()) return ie::cli::guarded_main("bench", [&] { return replot(replot_files, a.plot); });
  return ie::cli::guarded_main("bench", [&] { return run(a); });
}
