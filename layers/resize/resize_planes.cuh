// Resize of [planes, H, W] -> [planes, H', W'] on the fused "cuda" kernel set: one CTA per plane at a time, the
// plane staged in shared memory as float, each output row and column reading its taps (up to 4 source indices and
// weights, computed at plan time; count -1 marks an extrapolated position). Float32, float16 and bfloat16 in and
// out, float arithmetic in the order of the reference kernel (along W for each H tap, then along H).
//
// Two passes through shared memory, along W then along H: warps take rows and lanes take columns, so stores
// coalesce without any index division; the row taps sit in shared memory (one broadcast per row), a lane keeps its
// columns' taps in registers across rows and planes.
// Memory-bound: the floor is the output written once (the ConvNet's 28x28 -> 86x86 writes 9.4x what it reads). Depends
// on CUDA alone, like the other kernel headers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layers/common/float_device.cuh"
#include "layers/common/launch_limits.cuh"

namespace ie::rsz {

struct DevTaps {
  int32_t index[4];
  float weight[4];
  int32_t count;  // -1: outside the crop box (the extrapolation value)
};

struct Params {
  const void* in = nullptr;
  void* out = nullptr;
  int64_t planes = 0;
  int in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  const DevTaps* rows = nullptr;  // out_h taps along H
  const DevTaps* cols = nullptr;  // out_w taps along W
  float extrapolation = 0.f;
};

/// Interpolation along one axis: the weighted sum of at(i) over the taps in float, zero weights skipped, or the
/// extrapolation value outside the crop box. Fixed loop bounds keep the taps in registers.
template <class At>
__device__ __forceinline__ float along(const DevTaps& t, float extrapolation, At at) {
  if (t.count < 0) return extrapolation;
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (k >= t.count) break;
    if (t.weight[k] != 0.f) acc += t.weight[k] * at(t.index[k]);
  }
  return acc;
}

/// One output value from its row taps `ty` and column taps `tx`, reading the source through at(iy, ix): along W
/// for each H tap, then along H (the reference kernel's order; the plane kernel computes the same two passes
/// through shared memory, so both give the same bits).
template <class At>
__device__ __forceinline__ float interpolate(const DevTaps& ty, const DevTaps& tx, float extrapolation, At at) {
  return along(ty, extrapolation, [&](int iy) { return along(tx, extrapolation, [&](int ix) { return at(iy, ix); }); });
}

constexpr int kThreads = 256;
// Output columns a lane keeps the taps of in registers (lane, lane + 32, ...): rows up to 128 wide; wider ones
// read their column taps from memory per output.
constexpr int kLaneColumns = 4;
// Input elements per thread prefetched in registers: planes up to 4 x 256 = 1024 elements (32x32).
constexpr int kPrefetch = 4;

/// Shared memory one CTA uses: its plane as float, the plane's rows resampled along W, then the row taps.
inline size_t shared_bytes(int in_h, int in_w, int out_h, int out_w) {
  return (static_cast<size_t>(in_h) * in_w + static_cast<size_t>(in_h) * out_w) * sizeof(float) +
         static_cast<size_t>(out_h) * sizeof(DevTaps);
}
// Within the default 48 KiB (no opt-in); larger planes go to the reference kernel.
constexpr size_t kMaxSharedBytes = 48 * 1024;

// Two passes per plane through shared memory, as separable filters do: every input row resampled along W (warps on
// input rows), then every output row from its H taps over those (warps on output rows). kCols > 0: out_w <=
// 32 * kCols and each lane holds its columns' taps in registers.
template <class T, int kCols>
__global__ void __launch_bounds__(kThreads) resize_planes_kernel(Params p) {
  extern __shared__ float shared[];
  const int in_hw = p.in_h * p.in_w;
  float* plane = shared;
  float* across = plane + in_hw;  // [in_h, out_w]
  // The row taps follow, 4-byte aligned like DevTaps.
  DevTaps* rows = reinterpret_cast<DevTaps*>(across + p.in_h * p.out_w);
  for (int y = static_cast<int>(threadIdx.x); y < p.out_h; y += static_cast<int>(blockDim.x)) rows[y] = p.rows[y];
  const int64_t out_hw = static_cast<int64_t>(p.out_h) * p.out_w;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warps = static_cast<int>(blockDim.x) / 32;
  DevTaps cols[kCols > 0 ? kCols : 1];
#pragma unroll
  for (int c = 0; c < kCols; ++c)
    if (lane + 32 * c < p.out_w) cols[c] = p.cols[lane + 32 * c];
  // Calls f(x, taps of column x) for this lane's columns.
  auto each_column = [&](auto&& f) {
    if constexpr (kCols > 0) {
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        if (lane + 32 * c < p.out_w) f(lane + 32 * c, cols[c]);
    } else {
      for (int x = lane; x < p.out_w; x += 32) f(x, p.cols[x]);
    }
  };
  // Small planes: each thread holds its share of the next plane in registers, loaded while this plane is
  // computed, so that the global load's latency hides behind the two passes.
  const bool prefetch = in_hw <= kPrefetch * static_cast<int>(blockDim.x);
  float next[kPrefetch];
  auto fetch = [&](int64_t q) {
    const T* src = static_cast<const T*>(p.in) + q * in_hw;
#pragma unroll
    for (int r = 0; r < kPrefetch; ++r) {
      const int i = static_cast<int>(threadIdx.x) + r * static_cast<int>(blockDim.x);
      if (i < in_hw) next[r] = dev::to_float(src[i]);
    }
  };
  if (prefetch && blockIdx.x < p.planes) fetch(blockIdx.x);
  for (int64_t q = blockIdx.x; q < p.planes; q += gridDim.x) {
    __syncthreads();  // every reader of the previous plane is done (and, the first time, the row taps are in)
    if (prefetch) {
#pragma unroll
      for (int r = 0; r < kPrefetch; ++r) {
        const int i = static_cast<int>(threadIdx.x) + r * static_cast<int>(blockDim.x);
        if (i < in_hw) plane[i] = next[r];
      }
    } else {
      const T* src = static_cast<const T*>(p.in) + q * in_hw;
      for (int i = static_cast<int>(threadIdx.x); i < in_hw; i += static_cast<int>(blockDim.x))
        plane[i] = dev::to_float(src[i]);
    }
    __syncthreads();
    if (prefetch && q + gridDim.x < p.planes) fetch(q + gridDim.x);
    for (int iy = warp; iy < p.in_h; iy += warps) {
      const float* in_row = plane + iy * p.in_w;
      float* out_row = across + iy * p.out_w;
      each_column([&](int x, const DevTaps& tx) {
        out_row[x] = along(tx, p.extrapolation, [&](int ix) { return in_row[ix]; });
      });
    }
    __syncthreads();
    T* dst = static_cast<T*>(p.out) + q * out_hw;
    for (int y = warp; y < p.out_h; y += warps) {
      const DevTaps ty = rows[y];  // the same for the whole warp: a broadcast
      T* out_row = dst + static_cast<int64_t>(y) * p.out_w;
      each_column([&](int x, const DevTaps&) {
        out_row[x] = dev::from_float<T>(along(ty, p.extrapolation, [&](int iy) { return across[iy * p.out_w + x]; }));
      });
    }
  }
}

/// Launches on `stream` with as many CTAs as fit on the device at once (each then loops over planes). The caller
/// has checked shared_bytes() against kMaxSharedBytes.
template <class T>
cudaError_t launch(const Params& p, cudaStream_t stream) {
  if (p.planes == 0 || p.out_h == 0 || p.out_w == 0) return cudaSuccess;
  const int smem = static_cast<int>(shared_bytes(p.in_h, p.in_w, p.out_h, p.out_w));
  auto kernel = p.out_w <= 32 * kLaneColumns ? resize_planes_kernel<T, kLaneColumns> : resize_planes_kernel<T, 0>;
  dev::DeviceLimits limits;
  cudaError_t err = dev::device_limits(&limits);
  int per_sm = 0;
  if (err == cudaSuccess) err = dev::resident_blocks(kernel, kThreads, smem, limits.smem_optin, &per_sm);
  if (err != cudaSuccess) return err;
  const int64_t resident = static_cast<int64_t>(limits.sms) * (per_sm > 0 ? per_sm : 1);
  const unsigned grid = static_cast<unsigned>(p.planes < resident ? p.planes : resident);
  kernel<<<grid, kThreads, smem, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace ie::rsz
