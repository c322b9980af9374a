// Resize of [planes, H, W] -> [planes, H', W'] on the fused "cuda" kernel set: one CTA per plane at a time, the
// plane staged in shared memory as float, each output row and column reading its taps (up to 4 source indices and
// weights, computed at plan time; count -1 marks an extrapolated position). Float32, float16 and bfloat16 in and
// out, float arithmetic in the order of the reference kernel (along W for each H tap, then along H).
//
// Warps take output rows and lanes take columns, so stores coalesce without any index division; a lane keeps its
// column's taps in registers across the rows. Memory-bound: the floor is the output written once (the ConvNet's
// 28x28 -> 86x86 writes 9.4x what it reads). Depends on CUDA alone, like the other kernel headers.
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

/// One output value from its row taps `ty` and column taps `tx`, reading the source through at(iy, ix): along W
/// for each H tap, then along H, in float, zero weights skipped (the CPU op's order, so results agree to rounding).
/// Shared by the reference and the plane kernel. Fixed loop bounds keep the taps in registers.
template <class At>
__device__ __forceinline__ float interpolate(const DevTaps& ty, const DevTaps& tx, float extrapolation, At at) {
  if (ty.count < 0) return extrapolation;
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (k >= ty.count) break;
    const float wy = ty.weight[k];
    if (wy == 0.f) continue;
    float row = 0.f;
    if (tx.count < 0) {
      row = extrapolation;
    } else {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (j >= tx.count) break;
        const float wx = tx.weight[j];
        if (wx != 0.f) row += wx * at(ty.index[k], tx.index[j]);
      }
    }
    acc += wy * row;
  }
  return acc;
}

constexpr int kThreads = 256;
// A plane staged as float in the default 48 KiB of shared memory; larger planes go to the reference kernel.
constexpr int kMaxPlaneElements = 48 * 1024 / 4;

template <class T>
__global__ void __launch_bounds__(kThreads) resize_planes_kernel(Params p) {
  extern __shared__ float plane[];
  const int in_hw = p.in_h * p.in_w;
  const int64_t out_hw = static_cast<int64_t>(p.out_h) * p.out_w;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int warps = static_cast<int>(blockDim.x) / 32;
  for (int64_t q = blockIdx.x; q < p.planes; q += gridDim.x) {
    const T* src = static_cast<const T*>(p.in) + q * in_hw;
    __syncthreads();  // every reader of the previous plane is done
    for (int i = static_cast<int>(threadIdx.x); i < in_hw; i += static_cast<int>(blockDim.x))
      plane[i] = dev::to_float(src[i]);
    __syncthreads();
    T* dst = static_cast<T*>(p.out) + q * out_hw;
    for (int x = lane; x < p.out_w; x += 32) {
      const DevTaps tx = p.cols[x];
      for (int y = warp; y < p.out_h; y += warps) {
        const DevTaps& ty = p.rows[y];
        const float acc = interpolate(ty, tx, p.extrapolation, [&](int iy, int ix) { return plane[iy * p.in_w + ix]; });
        dst[static_cast<int64_t>(y) * p.out_w + x] = dev::from_float<T>(acc);
      }
    }
  }
}

/// Shared memory one CTA stages its plane in.
inline int plane_bytes(const Params& p) { return p.in_h * p.in_w * static_cast<int>(sizeof(float)); }

/// Launches on `stream` with as many CTAs as fit on the device at once (each then loops over planes).
template <class T>
cudaError_t launch(const Params& p, cudaStream_t stream) {
  if (p.planes == 0 || p.out_h == 0 || p.out_w == 0) return cudaSuccess;
  const int smem = plane_bytes(p);
  dev::DeviceLimits limits;
  cudaError_t err = dev::device_limits(&limits);
  int per_sm = 0;
  if (err == cudaSuccess)
    err = dev::resident_blocks(resize_planes_kernel<T>, kThreads, smem, limits.smem_optin, &per_sm);
  if (err != cudaSuccess) return err;
  const int64_t resident = static_cast<int64_t>(limits.sms) * (per_sm > 0 ? per_sm : 1);
  const unsigned grid = static_cast<unsigned>(p.planes < resident ? p.planes : resident);
  resize_planes_kernel<T><<<grid, kThreads, smem, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace ie::rsz
