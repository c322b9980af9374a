// bench's results and their forms: terminal lines, JSON, CSV, a gnuplot chart, and the check against a baseline.
#pragma once

#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tools/common/stats.h"

namespace ie::cli {

struct BenchResult {
  std::string path;
  int64_t batch = 0;
  std::string status = "ok";                            // "ok" | "skipped"
  std::string reason;                                   // why skipped (e.g. CUDA out of memory)
  LatencyStats compute;                                 // compute-only latency (ms): inputs already on the device
  LatencyStats end_to_end;                              // host -> device -> host wall time (ms)
  double h2d_ms = 0, compute_phase_ms = 0, d2h_ms = 0;  // medians of the end-to-end phases
  double streamed_ms = 0;  // per batch with batches in flight (ie::Pipeline), first to last output; 0: not measured
  int in_flight = 0;       // sessions the pipeline kept busy
  int devices = 1;         // devices the streamed batches were split across
  nlohmann::json profile;                               // per-op table (--profile), else null

  /// Samples per second at the median latency (compute-only: the figure baselines compare); the median keeps one
  /// slow outlier on a shared machine from reading as a regression.
  double throughput() const { return compute.p50 > 0 ? 1000.0 * static_cast<double>(batch) / compute.p50 : 0; }
  double throughput_e2e() const {
    return end_to_end.p50 > 0 ? 1000.0 * static_cast<double>(batch) / end_to_end.p50 : 0;
  }
  double throughput_streamed() const {
    return streamed_ms > 0 ? 1000.0 * static_cast<double>(batch) / streamed_ms : 0;
  }
};

struct BenchReport {
  std::string model, name, precision, git_revision, timing, warmup;
  uint64_t seed = 0;
  int sets = 3;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> devices;  // per path
  std::vector<BenchResult> results;
};

/// Header of one path: revision, model, device facts, then the column titles.
std::string bench_header(const BenchReport& report, const std::string& path);
/// One result line (with a warning line when the coefficient of variation exceeds 5%).
std::string bench_line(const BenchResult& r);
nlohmann::json bench_json(const BenchReport& report);
/// Reads results back from bench_json's form (several files may be merged for one plot); throws Error(BadInput)
/// naming `what` when the JSON is not a bench report.
BenchReport bench_from_json(const nlohmann::json& j, const std::string& what);
std::string bench_csv(const BenchReport& report);
/// Latency and throughput against batch size, one line per path, through gnuplot (.png or .svg by extension).
/// Without gnuplot, or when it fails, a warning goes to `warn` and no file is written; never throws for that.
void plot_bench(const BenchReport& report, const std::string& file, std::ostream& warn);
/// (path, batch) pairs whose compute-only throughput is more than `threshold` below the baseline JSON's; each is
/// printed on `out`. Throws Error(BadInput) when the baseline cannot be read.
std::vector<std::string> compare_baseline(const BenchReport& report, const std::string& baseline_path, double threshold,
                                          std::ostream& out);

}  // namespace ie::cli
