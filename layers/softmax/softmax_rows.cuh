// The fused kernel set's Softmax and LogSoftmax over contiguous rows (the normalized axis is the last one): a group
// of G lanes per row (G = 1..32, a power of two: a warp holds 32 / G rows, so a classifier's 10 classes do not
// leave 22 lanes idle), each lane keeping V of the row's values in registers, so the row is read once and written
// once. Max, sum and the output in float whatever the element types, which may differ between input and output
// (float16/bfloat16 in, float32 out: the model's output without a Cast step). Depends on CUDA alone.
//
// Arithmetic as on the CPU backend: max, e = exp(x - max), sum, y = e * (1 / sum) (LogSoftmax: y = x - (log(sum) +
// max)); only the summation order differs. A NaN in a row makes the whole row NaN, as there.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "layers/common/float_device.cuh"

namespace ie::soft {

constexpr int kThreads = 256;
constexpr int kMaxRow = 32 * 32;  // G = 32 lanes x V = 32 values

struct Params {
  const void* x = nullptr;  // rows x n, TIn
  void* y = nullptr;        // rows x n, TOut
  int64_t rows = 0;
  int n = 0;
};

template <int G>
__device__ __forceinline__ float group_max(float v) {
#pragma unroll
  for (int m = G / 2; m; m >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
  return v;
}

template <int G>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int m = G / 2; m; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  return v;
}

// Lane j of a row's group holds elements j, j + G, ..., j + (V - 1) G: a group's loads of one step are contiguous.
template <class TIn, class TOut, int G, int V, bool kLog>
__global__ void __launch_bounds__(kThreads) softmax_rows_kernel(Params p) {
  const int j = static_cast<int>(threadIdx.x) % G;
  const int64_t rows_per_block = kThreads / G, local = threadIdx.x / G;
  // Every lane of a block runs the same iterations (the shuffles need whole warps): rows past the end compute on
  // padding and store nothing.
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * rows_per_block; base < p.rows;
       base += static_cast<int64_t>(gridDim.x) * rows_per_block) {
    const int64_t row = base + local;
    const bool live = row < p.rows;
    const TIn* x = static_cast<const TIn*>(p.x) + (live ? row : 0) * p.n;
    float v[V];
    float mx = -INFINITY;
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const int c = j + i * G;
      v[i] = live && c < p.n ? dev::to_float(x[c]) : -INFINITY;
      mx = fmaxf(mx, v[i]);
    }
    mx = group_max<G>(mx);
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const int c = j + i * G;
      const float e = c < p.n ? expf(v[i] - mx) : 0.f;
      sum += e;
      if constexpr (!kLog) v[i] = e;
    }
    sum = group_sum<G>(sum);
    if (!live) continue;
    TOut* y = static_cast<TOut*>(p.y) + row * p.n;
    const float inv = 1.f / sum, shift = logf(sum) + mx;
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const int c = j + i * G;
      if (c < p.n) y[c] = dev::from_float<TOut>(kLog ? v[i] - shift : v[i] * inv);
    }
  }
}

template <class TIn, class TOut, int G, int V, bool kLog>
cudaError_t launch_shape(const Params& p, int sms, cudaStream_t stream) {
  const int64_t rows_per_block = kThreads / G;
  int64_t blocks = (p.rows + rows_per_block - 1) / rows_per_block;
  const int64_t cap = static_cast<int64_t>(sms) * 8;  // a few waves; the grid-stride loop does the rest
  if (blocks > cap) blocks = cap;
  softmax_rows_kernel<TIn, TOut, G, V, kLog><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

/// Softmax (kLog false) or LogSoftmax of p.rows rows of p.n <= kMaxRow elements on `stream`. `sms`: the device's
/// multiprocessor count (sizes the grid).
template <class TIn, class TOut, bool kLog>
cudaError_t launch(const Params& p, int sms, cudaStream_t stream) {
  if (p.rows == 0 || p.n == 0) return cudaSuccess;
  if (p.n > kMaxRow) return cudaErrorInvalidValue;
  if (p.n <= 1) return launch_shape<TIn, TOut, 1, 1, kLog>(p, sms, stream);
  if (p.n <= 2) return launch_shape<TIn, TOut, 2, 1, kLog>(p, sms, stream);
  if (p.n <= 4) return launch_shape<TIn, TOut, 4, 1, kLog>(p, sms, stream);
  if (p.n <= 8) return launch_shape<TIn, TOut, 8, 1, kLog>(p, sms, stream);
  if (p.n <= 16) return launch_shape<TIn, TOut, 16, 1, kLog>(p, sms, stream);
  if (p.n <= 32) return launch_shape<TIn, TOut, 32, 1, kLog>(p, sms, stream);
  if (p.n <= 64) return launch_shape<TIn, TOut, 32, 2, kLog>(p, sms, stream);
  if (p.n <= 128) return launch_shape<TIn, TOut, 32, 4, kLog>(p, sms, stream);
  if (p.n <= 256) return launch_shape<TIn, TOut, 32, 8, kLog>(p, sms, stream);
  if (p.n <= 512) return launch_shape<TIn, TOut, 32, 16, kLog>(p, sms, stream);
  return launch_shape<TIn, TOut, 32, 32, kLog>(p, sms, stream);
}

}  // namespace ie::soft
