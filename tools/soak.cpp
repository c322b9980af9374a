// soak: one engine, N sessions on N threads running small batches for a long time, checking that every output is
// bitwise equal to a single-threaded run of the same input and that resident memory stays flat.
//
//   soak --config configs/ssa.yaml --sessions 8 --duration-s 600 --json soak.json      (the 10-minute CPU soak)
//   soak --model weights/convnet.onnx --backend cuda --sessions 4 --duration-s 300
//
// Memory: resident set size (/proc/self/statm) sampled every --sample-s; after the first tenth of the run (warm-up:
// plans, arenas, thread pools) it may not grow by more than --max-growth-mb. On CUDA backends the device's memory in
// use (cudaMemGetInfo: the whole device, so run it alone there) is sampled too and held to --max-device-growth-mb.
// Exit status: 0 when all hold, 1 on a mismatch or growth, the usual codes (2 usage, 3 bad input, 4 device)
// otherwise.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#ifdef IE_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "engine/io/file_util.h"
#include "tools/common/cli.h"
#include "tools/common/model_source.h"
#include "tools/common/random_inputs.h"

namespace {

struct Args {
  ie::cli::ModelSource source;
  std::string backend = "cpu", precision = "fp32", json;
  int sessions = 4, threads = 0, batch = 4, input_sets = 8;
  double duration_s = 60, sample_s = 1, max_growth_mb = 16, max_device_growth_mb = 16;
};

struct Sample {
  double t_s;
  int64_t runs;
  double rss_mb;
  double device_mb;  // -1: not sampled (a CPU backend or a build without CUDA)
};

double rss_mb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// Memory in use on the calling thread's CUDA device, in MB; -1 where there is none to sample.
double device_mb(bool cuda) {
#ifdef IE_HAVE_CUDA
  size_t free_bytes = 0, total_bytes = 0;
  if (cuda && cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
    return static_cast<double>(total_bytes - free_bytes) / (1024.0 * 1024.0);
#endif
  return -1;
}

// Growth after warm-up: the largest sample of the rest of the run against the first sample past a tenth of it.
struct Growth {
  double base, peak;
};
Growth growth_after_warmup(const std::vector<Sample>& samples, double duration_s, double Sample::*field, double now) {
  Growth g{now, now};
  auto warm = [&](const Sample& s) { return s.t_s >= 0.1 * duration_s; };
  const auto first = std::find_if(samples.begin(), samples.end(), warm);
  if (first != samples.end())
    g.base = g.peak = (*first).*field;
  else if (!samples.empty())
    g.base = g.peak = samples.front().*field;
  for (const Sample& s : samples)
    if (warm(s)) g.peak = std::max(g.peak, s.*field);
  return g;
}

int run(const Args& a) {
  a.source.validate();
  ie::Options options;
  options.backend = a.backend;
  options.threads = a.threads;
  options.precision = ie::precision_from_name(a.precision);
  const ie::Engine engine = a.source.load(options);
  const bool cuda = engine.backend().rfind("cuda", 0) == 0;

  // The expected outputs: one session, one thread, each input set once.
  std::vector<std::map<std::string, ie::Tensor>> inputs;
  std::vector<std::vector<ie::Tensor>> expected;
  {
    ie::Session single = engine.create_session();
    for (int i = 0; i < a.input_sets; ++i) {
      inputs.push_back(ie::cli::random_inputs(engine.inputs(), a.batch, 1000 + i));
      expected.push_back(single.run_ordered(inputs.back()));
    }
  }

  std::atomic<int64_t> runs{0};
  std::atomic<bool> stop{false}, mismatch{false};
  std::mutex report;
  std::string first_mismatch;
  std::vector<std::thread> workers;
  for (int w = 0; w < a.sessions; ++w)
    workers.emplace_back([&, w] {
      ie::Session session = engine.create_session();
      for (int64_t i = w; !stop.load(std::memory_order_relaxed); ++i) {
        const size_t set = static_cast<size_t>(i % a.input_sets);
        const std::vector<ie::Tensor> got = session.run_ordered(inputs[set]);
        for (size_t o = 0; o < got.size(); ++o)
          if (!bitwise_equal(got[o], expected[set][o])) {
            std::lock_guard<std::mutex> lock(report);
            if (!mismatch.exchange(true))
              first_mismatch = "session " + std::to_string(w) + ", input set " + std::to_string(set) + ", output " +
                               std::to_string(o);
            stop = true;
          }
        runs.fetch_add(1, std::memory_order_relaxed);
      }
    });

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::vector<Sample> samples;
  const bool live = ie::cli::stdout_is_terminal();
  while (!stop && elapsed() < a.duration_s) {
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(a.sample_s, a.duration_s - elapsed())));
    samples.push_back({elapsed(), runs.load(), rss_mb(), device_mb(cuda)});
    if (live)
      std::printf("\r  %7.1f s  %10lld runs  %8.1f MB resident", samples.back().t_s,
                  static_cast<long long>(samples.back().runs), samples.back().rss_mb),
          std::fflush(stdout);
  }
  stop = true;
  for (auto& t : workers) t.join();
  if (live) std::printf("\n");

  const Growth host = growth_after_warmup(samples, a.duration_s, &Sample::rss_mb, rss_mb());
  const Growth device = growth_after_warmup(samples, a.duration_s, &Sample::device_mb, device_mb(cuda));
  const double growth = host.peak - host.base, device_growth = device.peak - device.base;
  const bool grew = growth > a.max_growth_mb, device_grew = cuda && device_growth > a.max_device_growth_mb;

  std::printf("soak: %s on %s (%s), %d sessions, batch %d, %.0f s: %lld runs (%.0f runs/s)\n", a.source.name().c_str(),
              engine.backend().c_str(), a.precision.c_str(), a.sessions, a.batch, elapsed(),
              static_cast<long long>(runs.load()), runs.load() / std::max(elapsed(), 1e-9));
  std::printf("%10s %12s %12s%s\n", "time s", "runs", "resident MB", cuda ? "    device MB" : "");
  const size_t stride = std::max<size_t>(1, samples.size() / 20);
  for (size_t i = 0; i < samples.size(); i += stride) {
    std::printf("%10.1f %12lld %12.1f", samples[i].t_s, static_cast<long long>(samples[i].runs), samples[i].rss_mb);
    if (cuda) std::printf(" %12.1f", samples[i].device_mb);
    std::printf("\n");
  }
  std::printf("resident memory after warm-up: %.1f -> %.1f MB (growth %.1f MB, allowed %.1f): %s\n", host.base,
              host.peak, growth, a.max_growth_mb, grew ? "FAIL" : "flat");
  if (cuda)
    std::printf("device memory after warm-up: %.1f -> %.1f MB (growth %.1f MB, allowed %.1f): %s\n", device.base,
                device.peak, device_growth, a.max_device_growth_mb, device_grew ? "FAIL" : "flat");
  std::printf("outputs against the single-threaded run: %s\n",
              mismatch ? ("FAIL, first at " + first_mismatch).c_str() : "all bitwise equal");

  if (!a.json.empty()) {
    nlohmann::json j;
    j["tool"] = "soak";
    j["model"] = a.source.name();
    j["backend"] = engine.backend();
    j["precision"] = a.precision;
    j["sessions"] = a.sessions;
    j["batch"] = a.batch;
    j["duration_s"] = elapsed();
    j["runs"] = runs.load();
    j["rss_growth_mb"] = growth;
    if (cuda) j["device_growth_mb"] = device_growth;
    j["outputs_equal"] = !mismatch;
    for (const Sample& s : samples) {
      j["samples"].push_back({{"t_s", s.t_s}, {"runs", s.runs}, {"rss_mb", s.rss_mb}});
      if (cuda) j["samples"].back()["device_mb"] = s.device_mb;
    }
    ie::AtomicFileWriter out(a.json);
    out.write(j.dump(1) + "\n");
    out.commit();
  }
  return mismatch || grew || device_grew ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Many sessions on many threads for a long time: outputs bitwise stable, memory flat"};
  Args a;
  a.source.add_options(app);
  app.add_option("--backend", a.backend, "cpu | cuda | cuda-reference");
  ie::cli::add_precision_option(app, &a.precision);
  app.add_option("--sessions", a.sessions, "sessions, one thread each")->check(ie::cli::at_least(1, "--sessions"));
  app.add_option("--batch", a.batch, "samples per run")->check(ie::cli::at_least(1, "--batch"));
  app.add_option("--input-sets", a.input_sets, "distinct inputs cycled through")
      ->check(ie::cli::at_least(1, "--input-sets"));
  app.add_option("--duration-s", a.duration_s, "how long to run")->check(CLI::PositiveNumber);
  app.add_option("--sample-s", a.sample_s, "memory sampling period")->check(CLI::PositiveNumber);
  app.add_option("--max-growth-mb", a.max_growth_mb, "resident growth allowed after the first tenth of the run")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-device-growth-mb", a.max_device_growth_mb,
                 "device memory growth allowed after the first tenth of the run (CUDA backends)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--json", a.json, "write the report as JSON to FILE");
  ie::cli::add_threads_option(app, &a.threads);
  IE_CLI_PARSE(app, argc, argv);
  return ie::cli::guarded_main("soak", [&] { return run(a); });
}
