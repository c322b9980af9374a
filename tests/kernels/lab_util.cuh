// What the kernel labs share: a CUDA_CHECK that exits with status 3, an owning device buffer, host values in the
// three element types, the timing rule
// (median of 50 launches after 5 warm-ups, CUDA events around each launch) and the float64 activations the
// references apply, and the labs' command line (run_lab). CUDA alone, like the labs.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "layers/common/activation_device.cuh"

#define CUDA_CHECK(x)                                                                     \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(3);                                                                            \
    }                                                                                     \
  } while (0)

namespace lab {

struct DeviceBuf {
  void* p = nullptr;
  explicit DeviceBuf(size_t bytes) { CUDA_CHECK(cudaMalloc(&p, bytes < 16 ? 16 : bytes)); }
  ~DeviceBuf() { cudaFree(p); }
  DeviceBuf(const DeviceBuf&) = delete;
  DeviceBuf& operator=(const DeviceBuf&) = delete;
};

/// Median time in ms of `launch(i)` (i: the run's index, for rotating inputs) over 50 runs after 5 warm-ups.
template <class L>
float median_ms(L&& launch, cudaStream_t stream) {
  constexpr int kWarmup = 5, kReps = 50;
  for (int i = 0; i < kWarmup; ++i) launch(i);
  std::vector<cudaEvent_t> ev(2 * kReps);
  for (auto& e : ev) CUDA_CHECK(cudaEventCreate(&e));
  for (int i = 0; i < kReps; ++i) {
    CUDA_CHECK(cudaEventRecord(ev[2 * i], stream));
    launch(i);
    CUDA_CHECK(cudaEventRecord(ev[2 * i + 1], stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> ms(kReps);
  for (int i = 0; i < kReps; ++i) CUDA_CHECK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
  for (auto& e : ev) CUDA_CHECK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return ms[kReps / 2];
}

/// The device's SM count (device 0), looked up once.
inline int sms() {
  static int n = [] {
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    return prop.multiProcessorCount;
  }();
  return n;
}

/// A row-major k x n matrix copied into a zero-padded kp x np one (the layout of W that several kernels read).
inline std::vector<float> zero_padded(const std::vector<float>& w, int k, int n, int kp, int np) {
  std::vector<float> out(static_cast<size_t>(kp) * np, 0.f);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < n; ++j) out[static_cast<size_t>(i) * np + j] = w[static_cast<size_t>(i) * n + j];
  return out;
}

/// The element types the fused kernels store, and host values in them.
enum class DT { F32, F16, BF16 };
inline const char* dt_name(DT t) { return t == DT::F32 ? "f32" : t == DT::F16 ? "f16" : "bf16"; }
inline int dt_size(DT t) { return t == DT::F32 ? 4 : 2; }

/// Host values rounded to the element type (what the kernel reads, so references see the same inputs).
inline std::vector<float> round_to(DT t, std::vector<float> v) {
  for (float& x : v) {
    if (t == DT::F16) x = __half2float(__float2half_rn(x));
    if (t == DT::BF16) x = __bfloat162float(__float2bfloat16_rn(x));
  }
  return v;
}

/// The bytes of `v` in the element type, and back.
inline std::vector<unsigned char> bytes_of(DT t, const std::vector<float>& v) {
  std::vector<unsigned char> b(v.size() * dt_size(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DT::F32) {
      memcpy(&b[i * 4], &v[i], 4);
    } else if (t == DT::F16) {
      __half h = __float2half_rn(v[i]);
      memcpy(&b[i * 2], &h, 2);
    } else {
      __nv_bfloat16 h = __float2bfloat16_rn(v[i]);
      memcpy(&b[i * 2], &h, 2);
    }
  }
  return b;
}
inline std::vector<float> floats_of(DT t, const std::vector<unsigned char>& b) {
  std::vector<float> v(b.size() / dt_size(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DT::F32) {
      memcpy(&v[i], &b[i * 4], 4);
    } else if (t == DT::F16) {
      __half h;
      memcpy(&h, &b[i * 2], 2);
      v[i] = __half2float(h);
    } else {
      __nv_bfloat16 h;
      memcpy(&h, &b[i * 2], 2);
      v[i] = __bfloat162float(h);
    }
  }
  return v;
}

/// The element type of a device type (float, __half, __nv_bfloat16).
template <class T>
DT dt_of() {
  return std::is_same_v<T, float> ? DT::F32 : std::is_same_v<T, __half> ? DT::F16 : DT::BF16;
}

/// Fills p[0, n) with values uniform in [0, 1) from a hash of (seed, index): on the device, so that a timing's
/// inputs of hundreds of MB cost no host time.
template <class T>
__global__ void fill_uniform_kernel(T* p, size_t n, unsigned long long seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;  // splitmix64
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const float u = static_cast<float>(z >> 40) * (1.f / 16777216.f);
    if constexpr (std::is_same_v<T, float>)
      p[i] = u;
    else if constexpr (std::is_same_v<T, __half>)
      p[i] = __float2half_rn(u);
    else
      p[i] = __float2bfloat16_rn(u);
  }
}

/// `sets` device buffers of `count` values uniform in [0, 1) (never all zeros) in type T, seeded: the inputs a
/// timing rotates through so that caches do not flatter it.
template <class T>
std::vector<std::unique_ptr<DeviceBuf>> rotated_inputs(size_t count, int sets) {
  std::vector<std::unique_ptr<DeviceBuf>> xs;
  for (int i = 0; i < sets; ++i) {
    xs.push_back(std::make_unique<DeviceBuf>(count * sizeof(T)));
    fill_uniform_kernel<T><<<1024, 256>>>(static_cast<T*>(xs.back()->p), count, 7ull + 1000003ull * i);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return xs;
}

/// `bytes` bytes of host memory copied into a new device buffer.
inline std::unique_ptr<DeviceBuf> to_device(const void* src, size_t bytes) {
  auto d = std::make_unique<DeviceBuf>(bytes);
  CUDA_CHECK(cudaMemcpy(d->p, src, bytes, cudaMemcpyHostToDevice));
  return d;
}

/// A kernel's output of `count` elements of `elem` bytes on the device, followed by a guard; all of it filled with
/// kGuardByte first, so that check_output finds writes past the output.
struct GuardedOutput {
  static constexpr unsigned char kGuardByte = 0x7f;
  static constexpr size_t kGuardElems = 64;
  size_t count, elem;
  DeviceBuf buf;
  GuardedOutput(size_t count_, size_t elem_) : count(count_), elem(elem_), buf((count_ + kGuardElems) * elem_) {
    CUDA_CHECK(cudaMemset(buf.p, kGuardByte, (count + kGuardElems) * elem));
  }
  size_t out_bytes() const { return count * elem; }
  /// The output and its guard, copied back.
  std::vector<unsigned char> fetch() const {
    std::vector<unsigned char> b((count + kGuardElems) * elem);
    CUDA_CHECK(cudaMemcpy(b.data(), buf.p, b.size(), cudaMemcpyDeviceToHost));
    return b;
  }
};

/// A batch's output y (its bytes `bytes`, the first `out_bytes` of them the output, the rest a guard filled with
/// `guard`) against its float64 reference: the worst error relative to 1 + |ref| over finite values; every
/// reference NaN must be NaN in y, and every NaN must lie in image `nan_image` of the n (a kernel's padded taps,
/// zero weights, may carry a NaN to a neighbour, never out of its image); no guard byte may change.
struct OutputCheck {
  double worst = 0;
  size_t nans = 0, nan_bad = 0, guard_bad = 0;
  /// Within `tol`, NaNs where they belong (and some, when the input held one), the guard untouched.
  bool passed(double tol, bool with_nan) const {
    return worst <= tol && nan_bad == 0 && guard_bad == 0 && (!with_nan || nans > 0);
  }
  /// What a check line adds after the error: the NaN outputs (when the input held one) and a write past the batch.
  std::string notes(bool with_nan) const {
    std::string s;
    if (with_nan) s += " nan outputs " + std::to_string(nans) + (nan_bad ? " MISMATCHED" : "");
    if (guard_bad) s += " WROTE PAST THE BATCH";
    return s;
  }
};
inline OutputCheck check_output(const std::vector<double>& ref, const std::vector<float>& y,
                                const std::vector<unsigned char>& bytes, size_t out_bytes, int n, int nan_image,
                                unsigned char guard) {
  OutputCheck c;
  const size_t per_image = ref.size() / n;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(ref[i]) || std::isnan(y[i])) {
      c.nans += std::isnan(ref[i]);
      c.nan_bad += (std::isnan(ref[i]) && !std::isnan(y[i])) || static_cast<int>(i / per_image) != nan_image;
      continue;
    }
    c.worst = std::max(c.worst, std::fabs(y[i] - ref[i]) / (1 + std::fabs(ref[i])));
  }
  for (size_t i = out_bytes; i < bytes.size(); ++i) c.guard_bad += bytes[i] != guard;
  return c;
}

/// Calls f with a value of the device element type of `t` (float, __half or __nv_bfloat16).
template <class F>
auto by_type(DT t, F&& f) {
  if (t == DT::F32) return f(float{});
  if (t == DT::F16) return f(__half{});
  return f(__nv_bfloat16{});
}

/// The fused epilogues' activations in float64 (the exact erf GELU), for the labs' references.
inline double activation_ref(ie::dev::Act a, double v) {
  using ie::dev::Act;
  switch (a) {
    case Act::Relu:
      return v < 0 ? 0 : v;
    case Act::Gelu:
      return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    case Act::GeluTanh:
      return 0.5 * v * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
    case Act::Tanh:
      return std::tanh(v);
    case Act::Sigmoid:
      return 1 / (1 + std::exp(-v));
    default:
      return v;
  }
}

/// The labs' command line and flow: [--check-only] [--no-validate] [--filter S] [--csv PATH]; a message and status
/// 0 without a GPU; `validate` (returns the number of failed checks), then `time` (timings whose name contains
/// the filter, also as CSV when a path is given). Returns main's exit status: 1 when a check failed.
inline int run_lab(int argc, char** argv, const std::function<int()>& validate,
                   const std::function<void(const std::string& filter, FILE* csv)>& time) {
  bool check_only = false, no_validate = false;
  std::string filter, csv_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check-only") {
      check_only = true;
    } else if (a == "--no-validate") {
      no_validate = true;
    } else if ((a == "--filter" || a == "--csv") && i + 1 < argc) {
      (a == "--filter" ? filter : csv_path) = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [--check-only] [--no-validate] [--filter S] [--csv PATH]\n", argv[0]);
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device: nothing to validate or time\n");
    return 0;
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  int failures = 0;
  if (!no_validate) {
    failures = validate();
    printf("validation: %s (%d failed)\n", failures ? "FAILED" : "ALL PASSED", failures);
  }
  if (!check_only) {
    FILE* csv = csv_path.empty() ? nullptr : fopen(csv_path.c_str(), "w");
    time(filter, csv);
    if (csv) fclose(csv);
  }
  return failures ? 1 : 0;
}

}  // namespace lab
