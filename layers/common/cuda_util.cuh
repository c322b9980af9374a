// Helpers shared by the plain CUDA kernels of the reference path: element types as the device sees them (float16
// is __half and bfloat16 __nv_bfloat16, both computed in float), type dispatch from a DType over an explicit list of
// device types, 16-byte packs for vector loads, warp and block sums, grid sizing and the stream of a kernel context.
//
//   std::unique_ptr<Kernel> k;
//   dispatch_device<float, __half>(dtype, [&](auto tag) { using T = typename decltype(tag)::type; k = ...; });
//   return k;  // nullptr when dtype is not in the list
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "engine/backend/cuda/cuda_state.h"
#include "engine/registry/op_def.h"
#include "layers/common/activation.h"
#include "layers/common/activation_device.cuh"

namespace ie::cuda {

constexpr int kThreads = 256;      // threads per block of the elementwise grid-stride kernels
constexpr int kWarpsPerBlock = 4;  // row kernels with one warp per row
constexpr int kRowThreads = 256;   // row kernels with one block per row

inline cudaStream_t stream_of(const KernelContext& ctx) { return static_cast<cudaStream_t>(ctx.stream); }

/// The device kernels' name for a fused op's activation (both enums list the same names in the same order).
inline dev::Act device_activation(Activation a) {
  static_assert(static_cast<int>(Activation::Sigmoid) == static_cast<int>(dev::Act::Sigmoid) &&
                    static_cast<int>(Activation::GeluTanh) == static_cast<int>(dev::Act::GeluTanh),
                "Activation and dev::Act must list the same activations in the same order");
  return static_cast<dev::Act>(static_cast<int>(a));
}

inline bool aligned_to(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

// ---- element types -------------------------------------------------------------------------------------------

template <class T>
struct DevTag {
  using type = T;
};

template <class T>
constexpr DType device_dtype() {
  if constexpr (std::is_same_v<T, float>) return DType::Float32;
  if constexpr (std::is_same_v<T, __half>) return DType::Float16;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return DType::BFloat16;
  if constexpr (std::is_same_v<T, double>) return DType::Float64;
  if constexpr (std::is_same_v<T, int32_t>) return DType::Int32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::Int64;
  if constexpr (std::is_same_v<T, int8_t>) return DType::Int8;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::UInt8;
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  return DType::Undefined;
}

/// Calls fn(DevTag<T>{}) for the T among Ts whose DType is `t`; returns false when none is.
template <class... Ts, class Fn>
bool dispatch_device(DType t, Fn&& fn) {
  return ((device_dtype<Ts>() == t ? (fn(DevTag<Ts>{}), true) : false) || ...);
}

/// Moving bytes only needs the element size: the unsigned type of that size, or false for other sizes.
template <class Fn>
bool dispatch_bytes(size_t size, Fn&& fn) {
  switch (size) {
    case 1:
      fn(DevTag<uint8_t>{});
      return true;
    case 2:
      fn(DevTag<uint16_t>{});
      return true;
    case 4:
      fn(DevTag<uint32_t>{});
      return true;
    case 8:
      fn(DevTag<uint64_t>{});
      return true;
    default:
      return false;
  }
}

/// Arithmetic on __half and __nv_bfloat16 happens in float, as on the CPU.
template <class T>
struct DevCompute {
  using type = T;
};
template <>
struct DevCompute<__half> {
  using type = float;
};
template <>
struct DevCompute<__nv_bfloat16> {
  using type = float;
};
template <class T>
using dev_compute_t = typename DevCompute<T>::type;

/// Value conversion that goes through float for __half and __nv_bfloat16 (rounding to nearest even).
template <class To, class From>
__device__ __forceinline__ To convert(From v) {
  if constexpr (std::is_same_v<From, To>) {
    return v;
  } else if constexpr (std::is_same_v<From, __half>) {
    return convert<To>(__half2float(v));
  } else if constexpr (std::is_same_v<From, __nv_bfloat16>) {
    return convert<To>(__bfloat162float(v));
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// ---- vector access -------------------------------------------------------------------------------------------

/// N elements loaded or stored as one access (16 bytes when sizeof(T) * N == 16).
template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

/// Elements per 16-byte access.
template <class T>
constexpr int pack_of() {
  return static_cast<int>(16 / sizeof(T));
}

// ---- reductions ----------------------------------------------------------------------------------------------

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// Sum over the block (blockDim.x a multiple of 32); every thread gets the total. `shared` holds 32 floats.
__device__ __forceinline__ float block_sum(float v, float* shared) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_sum(v);
  __syncthreads();  // `shared` may still be read from a previous call
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x >> 5) ? shared[lane] : 0.f;
  return warp_sum(v);
}

// ---- strided indexing ----------------------------------------------------------------------------------------

constexpr int kMaxDims = 8;

/// Maps a linear index over a box (C order) to element offsets in K strided views; dims are stored innermost
/// first so the divide loop runs from the fastest dim. Built on the host, passed by value to kernels.
template <class I, int K>
struct StridedMap {
  int rank = 0;
  I dims[kMaxDims];
  I strides[K][kMaxDims];

  __device__ __forceinline__ void offsets(I linear, I (&off)[K]) const {
#pragma unroll
    for (int k = 0; k < K; ++k) off[k] = 0;
#pragma unroll
    for (int d = 0; d < kMaxDims; ++d) {
      if (d >= rank) break;
      const I q = linear / dims[d], idx = linear - q * dims[d];
      linear = q;
#pragma unroll
      for (int k = 0; k < K; ++k) off[k] += idx * strides[k][d];
    }
  }
};

/// StridedMap of `shape` (outermost first) and K stride lists in the same order; false when rank > kMaxDims.
template <class I, int K>
bool make_strided_map(const Shape& shape, const std::vector<int64_t>* const (&strides)[K], StridedMap<I, K>& m) {
  const int rank = static_cast<int>(shape.size());
  if (rank > kMaxDims) return false;
  m.rank = rank;
  for (int d = 0; d < rank; ++d) {
    m.dims[d] = static_cast<I>(shape[rank - 1 - d]);
    for (int k = 0; k < K; ++k) m.strides[k][d] = static_cast<I>((*strides[k])[rank - 1 - d]);
  }
  return true;
}

// ---- launch --------------------------------------------------------------------------------------------------

/// First index and step of a grid-stride loop.
template <class I>
__device__ __forceinline__ I grid_start() {
  return static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
}
template <class I>
__device__ __forceinline__ I grid_step() {
  return static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);
}

/// Number of blocks of kThreads for a grid-stride loop over n items.
inline unsigned grid_for(int64_t n) { return blocks_for(n, kThreads); }

/// 32-bit indexing is used whenever every index and offset fits.
inline bool fits_int32(int64_t n) { return n < (int64_t(1) << 31); }

}  // namespace ie::cuda
