// What the kernel labs share: a CUDA_CHECK that exits with status 3, an owning device buffer, the timing rule
// (median of 50 launches after 5 warm-ups, CUDA events around each launch) and the float64 activations the
// references apply. CUDA alone, like the labs.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

}  // namespace lab
