#include "engine/profile/device_peaks.h"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/io/file_util.h"
#include "engine/profile/cache_folder.h"

namespace fs = std::filesystem;

namespace ie {

namespace {

std::map<std::string, PeakMeter>& meters() {
  static std::map<std::string, PeakMeter> table;
  return table;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Median wall time in ms of `runs` calls after `warmup` untimed ones.
template <class Fn>
double median_ms(int warmup, int runs, Fn&& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

double DevicePeaks::tflops_for(Precision precision) const {
  // bf16 and fp16 run at the same Tensor Core rate on the GPUs measured; fp16's figure stands for both.
  double v = precision == Precision::tf32                                            ? tf32_tflops
             : precision == Precision::fp16 || precision == Precision::bf16 ? fp16_tflops
                                                                                      : fp32_tflops;
  return v > 0 ? v : fp32_tflops;
}

std::string peaks_cache_path(const std::string& device) { return cache_file_path("peaks", device); }

std::string peaks_to_json(const DevicePeaks& p) {
  nlohmann::json j = {{"device", p.device},           {"method", p.method},           {"copy_gbps", p.copy_gbps},
                      {"fp32_tflops", p.fp32_tflops}, {"tf32_tflops", p.tf32_tflops}, {"fp16_tflops", p.fp16_tflops},
                      {"measured_at", p.measured_at}};
  return j.dump(2) + "\n";
}

DevicePeaks peaks_from_json(const std::string& text, const std::string& where) {
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    DevicePeaks p;
    p.device = j.at("device").get<std::string>();
    p.method = j.value("method", "");
    p.copy_gbps = j.at("copy_gbps").get<double>();
    p.fp32_tflops = j.at("fp32_tflops").get<double>();
    p.tf32_tflops = j.value("tf32_tflops", 0.0);
    p.fp16_tflops = j.value("fp16_tflops", 0.0);
    p.measured_at = j.value("measured_at", "");
    if (p.copy_gbps <= 0 || p.fp32_tflops <= 0) fail_input(where, ": peaks must be positive");
    return p;
  } catch (const nlohmann::json::exception& e) {
    fail_input(where, ": not a peaks file (", e.what(), ")");
  }
}

void register_peak_meter(const std::string& backend, PeakMeter meter) { meters()[backend] = std::move(meter); }

DevicePeaks measure_cpu_peaks(Backend& backend) {
  DevicePeaks p;
  p.device = backend.device_name();
  ThreadPoolScope pool(backend.thread_pool());  // the threads the backend's kernels run on
  // Copy: 256 MiB, split over the worker threads like the kernels' own loops.
  const size_t bytes = size_t(256) << 20;
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  const int64_t chunk = int64_t(1) << 20;
  double copy_ms = median_ms(1, 5, [&] {
    parallel_for(static_cast<int64_t>(bytes) / chunk, 1, [&](int64_t b, int64_t e) {
      std::memcpy(dst.data() + b * chunk, src.data() + b * chunk, static_cast<size_t>((e - b) * chunk));
    });
  });
  p.copy_gbps = 2.0 * static_cast<double>(bytes) / (copy_ms * 1e6);
  // SGEMM: Eigen's product on blocks of columns over the pool, as the CPU kernels split their products.
  const int n = 2048;
  Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n), c(n, n);
  const int64_t cols = (n + cpu_threads() - 1) / cpu_threads();
  double gemm_ms = median_ms(1, 3, [&] {
    parallel_for(n, cols, [&](int64_t c0, int64_t c1) {
      c.middleCols(c0, c1 - c0).noalias() = a * b.middleCols(c0, c1 - c0);
    });
  });
  p.fp32_tflops = 2.0 * n * double(n) * n / (gemm_ms * 1e9);
  p.method = "memcpy 256 MiB over " + std::to_string(cpu_threads()) + " threads; Eigen SGEMM " + std::to_string(n) +
             "^3; median of runs after warm-up";
  return p;
}

DevicePeaks device_peaks(Backend& backend, bool remeasure) {
  const std::string device = backend.device_name();
  const std::string path = peaks_cache_path(device);
  if (!remeasure && fs::exists(path)) {
    try {
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      DevicePeaks p = peaks_from_json(text.str(), path);
      if (p.device == device) {
        p.from_cache = true;
        return p;
      }
    } catch (const Error& e) {
      std::cerr << "warning: " << e.what() << "; measuring the peaks again\n";
    }
  }
  auto it = meters().find(backend.name());
  DevicePeaks p = it != meters().end() ? it->second(backend) : measure_cpu_peaks(backend);
  p.device = device;
  p.measured_at = utc_now();
  try {
    fs::create_directories(fs::path(path).parent_path());
    AtomicFileWriter out(path);
    out.write(peaks_to_json(p));
    out.commit();
  } catch (const std::exception& e) {
    std::cerr << "warning: cannot cache the device peaks in " << path << ": " << e.what() << "\n";
  }
  return p;
}

}  // namespace ie
