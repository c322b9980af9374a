// The fused set's ie.Linear in float16 and bfloat16: Y = act(A W + bias) (+ residual), A [rows, K] and Y
// [rows, N] in the storage type, products on Tensor Cores (WMMA 16x16x16, float accumulation), the bias, the
// activation and the residual added in the epilogue before the one rounding to the storage type. Depends on CUDA
// alone.
//
// Shapes: the models' products are tall and narrow (rows = batch x slices, K and N 32 to 640). A CTA of 4 warps
// takes 64 rows x BN columns (BN 32 or 64): its BN columns of W, zero-padded to K rounded up to 16, stay in shared
// memory while the CTA walks row tiles (grid-stride), so W is read once per CTA; A is staged 64 columns of K at a
// time. When K is a multiple of 8 and A is 16-byte aligned, A comes by 16-byte cp.async into two buffers: the
// next (tile, chunk) stage is in flight while this one is multiplied and its epilogue runs. Otherwise element by
// element, one stage at a time. Zeros past the last row and past K either way. Each warp owns 16 rows and BN / 16
// accumulator tiles; the accumulators go through shared memory for the epilogue, where a thread takes 8 consecutive
// columns (16-byte residual loads and Y stores when N is a multiple of 8 and the pointers aligned, else element by
// element). Products of at most 8 rows take linear_small_rows_kernel instead (split K, no Tensor Cores).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cstdint>

#include "layers/common/activation_device.cuh"
#include "layers/common/cp_async.cuh"
#include "layers/common/float_device.cuh"
#include "layers/common/launch_limits.cuh"

namespace ie::lin {

using dev::Act;

struct Params {
  const void* a = nullptr;         // rows x k, T
  const void* w = nullptr;         // kp x np, T, row-major, zero-padded (pack_weights)
  const float* bias = nullptr;     // n, or null
  const void* residual = nullptr;  // rows x n, T, or null
  void* y = nullptr;               // rows x n, T
  int64_t rows = 0;
  int k = 0, n = 0;
  int kp = 0, np = 0;  // k rounded up to 16, n rounded up to the column block
  Act act = Act::None;
};

constexpr int kRowsPerCta = 64;
constexpr int kThreads = 128;
constexpr int kChunk = 64;  // columns of A staged at a time
constexpr int kLdA = kChunk + 8;

inline int round_up(int v, int m) { return (v + m - 1) / m * m; }
/// The column block: 32 for products of at most 32 columns, else 64.
inline int column_block(int n) { return n <= 32 ? 32 : 64; }
inline int padded_k(int k) { return round_up(k, 16); }
inline int padded_n(int n) { return round_up(n, column_block(n)); }

/// Shared memory of one CTA: W's column block, two A chunks (double-buffered), the float accumulator tile.
template <class T>
size_t smem_bytes(int k, int n) {
  const int bn = column_block(n);
  return static_cast<size_t>(padded_k(k)) * (bn + 8) * sizeof(T) + 2 * kRowsPerCta * kLdA * sizeof(T) +
         static_cast<size_t>(kRowsPerCta) * (bn + 4) * sizeof(float);
}

using dev::from_float;
using dev::to_float;

using dev::cp_async16;
using dev::cp_async_commit;
using dev::cp_async_wait;

// Starts copying A[row0 .. row0 + 63, k0 .. k0 + 63] into a_s as 16-byte cp.async (K a multiple of 8, A aligned),
// zeros past the last row and past K; complete after cp_async_wait.
template <class T>
__device__ __forceinline__ void prefetch_a(const Params& p, int64_t row0, int k0, T* a_s) {
  const T* a = static_cast<const T*>(p.a);
  constexpr int kVecs = kChunk / 8;
  for (int i = threadIdx.x; i < kRowsPerCta * kVecs; i += kThreads) {
    const int r = i / kVecs, c = (i % kVecs) * 8;
    const int64_t row = row0 + r;
    const bool valid = row < p.rows && k0 + c < p.k;
    cp_async16(a_s + r * kLdA + c, valid ? a + row * p.k + k0 + c : a, valid);
  }
}

// A[row0 .. row0 + 63, k0 .. k0 + 63] into a_s (kLdA per row) element by element (K not a multiple of 8, or A
// misaligned), zeros past the last row and past K.
template <class T>
__device__ __forceinline__ void stage_a(const Params& p, int64_t row0, int k0, T* a_s) {
  const T* a = static_cast<const T*>(p.a);
  for (int i = threadIdx.x; i < kRowsPerCta * kChunk; i += kThreads) {
    const int r = i / kChunk, c = i % kChunk;
    const int64_t row = row0 + r;
    a_s[r * kLdA + c] = row < p.rows && k0 + c < p.k ? a[row * p.k + k0 + c] : from_float<T>(0.f);
  }
}

template <class T, int BN>
__global__ void __launch_bounds__(kThreads) linear_wmma_kernel(Params p) {
  using namespace nvcuda;
  constexpr int kLdW = BN + 8, kLdC = BN + 4, kFrags = BN / 16;
  extern __shared__ __align__(128) unsigned char smem[];
  T* w_s = reinterpret_cast<T*>(smem);                                  // kp x kLdW
  T* a_s = w_s + p.kp * kLdW;                                           // 2 x 64 x kLdA
  float* c_s = reinterpret_cast<float*>(a_s + 2 * kRowsPerCta * kLdA);  // 64 x kLdC
  const int col0 = blockIdx.y * BN;
  {
    // W's column block by 16-byte cp.async, all in flight at once (rows of np elements and col0 keep the 16-byte
    // alignment of the packed weights); it lands with the first A stage (the load-then-store loop before it:
    // fc3 at batch 1 0.0185 -> 0.0177 ms; that product's real cost was the K walk, see linear_small_rows_kernel).
    const T* w = static_cast<const T*>(p.w) + col0;
    constexpr int kVecs = BN / 8;
    for (int i = threadIdx.x; i < p.kp * kVecs; i += kThreads) {
      const int r = i / kVecs, c = (i % kVecs) * 8;
      cp_async16(w_s + r * kLdW + c, w + r * p.np + c, true);
    }
    cp_async_commit();
  }
  const bool vec = p.k % 8 == 0 && reinterpret_cast<uintptr_t>(p.a) % 16 == 0;
  const int warp = threadIdx.x >> 5;
  const T* residual = static_cast<const T*>(p.residual);
  T* y = static_cast<T*>(p.y);
  const bool vec_out = p.n % 8 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0 &&
                       (!residual || reinterpret_cast<uintptr_t>(residual) % 16 == 0);
  const int64_t tile_step = static_cast<int64_t>(gridDim.x) * kRowsPerCta;
  const int chunks = (p.kp + kChunk - 1) / kChunk;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFrags];

  // The products of one staged A chunk (columns k0 ..) into the accumulators.
  auto multiply = [&](const T* a_buf, int k0) {
    const int kend = min(kChunk, p.kp - k0);
    for (int kk = 0; kk < kend; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
      wmma::load_matrix_sync(fa, a_buf + warp * 16 * kLdA + kk, kLdA);
#pragma unroll
      for (int f = 0; f < kFrags; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb;
        wmma::load_matrix_sync(fb, w_s + (k0 + kk) * kLdW + f * 16, kLdW);
        wmma::mma_sync(acc[f], fa, fb, acc[f]);
      }
    }
  };
  // The accumulators through c_s, then bias, activation, residual and the store of the tile's rows.
  auto finish = [&](int64_t row0) {
#pragma unroll
    for (int f = 0; f < kFrags; ++f)
      wmma::store_matrix_sync(c_s + warp * 16 * kLdC + f * 16, acc[f], kLdC, wmma::mem_row_major);
    __syncthreads();
    if (vec_out) {
      // 8 columns per thread: 16-byte residual loads and Y stores (the scalar loop below made the residual
      // products 2x slower than the product alone: lab, 655360 x 64, 0.41 against 0.19 ms).
      constexpr int kVecs = BN / 8;
      for (int i = threadIdx.x; i < kRowsPerCta * kVecs; i += kThreads) {
        const int r = i / kVecs, c = (i % kVecs) * 8;
        const int64_t row = row0 + r;
        const int col = col0 + c;
        if (row >= p.rows || col >= p.n) continue;  // n % 8 == 0: the 8 columns are all in range
        float v[8];
        const float4 lo = *reinterpret_cast<const float4*>(c_s + r * kLdC + c);
        const float4 hi = *reinterpret_cast<const float4*>(c_s + r * kLdC + c + 4);
        v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w, v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
        if (p.bias) {
#pragma unroll
          for (int j = 0; j < 8; ++j) v[j] += __ldg(p.bias + col + j);
        }
        dev::activate_all<8>(p.act, v);
        if (residual) {
          uint4 raw = __ldg(reinterpret_cast<const uint4*>(residual + row * p.n + col));
          const T* rv = reinterpret_cast<const T*>(&raw);
#pragma unroll
          for (int j = 0; j < 8; ++j) v[j] += to_float(rv[j]);
        }
        uint4 out;
        T* ov = reinterpret_cast<T*>(&out);
#pragma unroll
        for (int j = 0; j < 8; ++j) ov[j] = from_float<T>(v[j]);
        *reinterpret_cast<uint4*>(y + row * p.n + col) = out;
      }
      return;
    }
    for (int i = threadIdx.x; i < kRowsPerCta * BN; i += kThreads) {
      const int r = i / BN, c = i % BN;
      const int64_t row = row0 + r;
      const int col = col0 + c;
      if (row >= p.rows || col >= p.n) continue;
      float v = c_s[r * kLdC + c];
      if (p.bias) v += p.bias[col];
      v = dev::activate(p.act, v);
      if (residual) v += to_float(residual[row * p.n + col]);
      y[row * p.n + col] = from_float<T>(v);
    }
  };

  if (vec) {
    // Pipelined: the copy of the next (tile, chunk) stage into the other A buffer runs while this one is
    // multiplied and, on a tile's last chunk, while its epilogue reads c_s and writes Y.
    int64_t row0 = static_cast<int64_t>(blockIdx.x) * kRowsPerCta;
    int chunk = 0, buf = 0;
    if (row0 < p.rows) prefetch_a<T>(p, row0, 0, a_s);
    cp_async_commit();
    while (row0 < p.rows) {
      int64_t next_row0 = row0;
      int next_chunk = chunk + 1;
      if (next_chunk == chunks) next_chunk = 0, next_row0 += tile_step;
      if (next_row0 < p.rows) {
        prefetch_a<T>(p, next_row0, next_chunk * kChunk, a_s + (buf ^ 1) * kRowsPerCta * kLdA);
        cp_async_commit();
        cp_async_wait<1>();
      } else {
        cp_async_wait<0>();
      }
      __syncthreads();  // this stage's A (every thread's copies) and W are in shared memory
      if (chunk == 0) {
#pragma unroll
        for (int f = 0; f < kFrags; ++f) wmma::fill_fragment(acc[f], 0.f);
      }
      multiply(a_s + buf * kRowsPerCta * kLdA, chunk * kChunk);
      if (chunk == chunks - 1) finish(row0);
      __syncthreads();  // reads of this A buffer and of c_s are done before the next stages overwrite them
      row0 = next_row0, chunk = next_chunk, buf ^= 1;
    }
    return;
  }
  for (int64_t row0 = static_cast<int64_t>(blockIdx.x) * kRowsPerCta; row0 < p.rows; row0 += tile_step) {
#pragma unroll
    for (int f = 0; f < kFrags; ++f) wmma::fill_fragment(acc[f], 0.f);
    for (int k0 = 0; k0 < p.kp; k0 += kChunk) {
      __syncthreads();  // the previous chunk's (or tile's epilogue) reads of a_s / c_s are done
      stage_a<T>(p, row0, k0, a_s);
      cp_async_wait<0>();  // W (the first time)
      __syncthreads();
      multiply(a_s, k0);
    }
    finish(row0);
  }
}

// Products of at most kSmallRows rows (batch 1 of the conv net's fc3: 1 x 1024 -> 32). The tiled kernel walks K
// in 64-column chunks, one global round trip each, with its 64-row tile almost empty: 18 us for K = 1024. Here a
// CTA takes 32 columns with 32 warps, warp s the s-th of 32 slices of K: lanes read 32 consecutive columns of W
// (coalesced) and A's elements as broadcasts, 8 k in flight; the slices' partial sums are added in shared memory
// in slice order (deterministic), then the same epilogue as the tiled kernel.
constexpr int kSmallRows = 8;
constexpr int kSmallSlices = 32;

template <class T>
__global__ void __launch_bounds__(32 * kSmallSlices) linear_small_rows_kernel(Params p) {
  __shared__ float part[kSmallSlices][kSmallRows][32];
  const int lane = threadIdx.x & 31, slice = threadIdx.x >> 5;
  const int col = blockIdx.x * 32 + lane;  // < np (a multiple of 32): W's padded columns are zeros
  const T* a = static_cast<const T*>(p.a);
  const T* w = static_cast<const T*>(p.w) + col;
  const int rows = static_cast<int>(p.rows);
  const int per = (p.k + kSmallSlices - 1) / kSmallSlices;
  const int k0 = slice * per, k1 = min(p.k, k0 + per);
  float acc[kSmallRows] = {};
  int k = k0;
  for (; k + 8 <= k1; k += 8) {
    float wv[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) wv[i] = to_float(w[static_cast<int64_t>(k + i) * p.np]);
#pragma unroll
    for (int r = 0; r < kSmallRows; ++r)
      if (r < rows) {
#pragma unroll
        for (int i = 0; i < 8; ++i) acc[r] = fmaf(to_float(a[static_cast<int64_t>(r) * p.k + k + i]), wv[i], acc[r]);
      }
  }
  for (; k < k1; ++k) {
    const float wv = to_float(w[static_cast<int64_t>(k) * p.np]);
#pragma unroll
    for (int r = 0; r < kSmallRows; ++r)
      if (r < rows) acc[r] = fmaf(to_float(a[static_cast<int64_t>(r) * p.k + k]), wv, acc[r]);
  }
#pragma unroll
  for (int r = 0; r < kSmallRows; ++r) part[slice][r][lane] = acc[r];
  __syncthreads();
  if (threadIdx.x >= rows * 32) return;
  const int r = threadIdx.x >> 5;
  if (col >= p.n) return;
  float v = 0.f;
  for (int i = 0; i < kSmallSlices; ++i) v += part[i][r][lane];
  if (p.bias) v += p.bias[col];
  v = dev::activate(p.act, v);
  const int64_t at = static_cast<int64_t>(r) * p.n + col;
  if (p.residual) v += to_float(static_cast<const T*>(p.residual)[at]);
  static_cast<T*>(p.y)[at] = from_float<T>(v);
}

template <class T, int BN>
cudaError_t launch_bn(const Params& p, cudaStream_t s) {
  dev::DeviceLimits limits;
  cudaError_t err = dev::device_limits(&limits);
  const int bytes = static_cast<int>(smem_bytes<T>(p.k, p.n));
  int per_sm = 0;  // also opts the kernel in to large shared memory, once
  if (err == cudaSuccess)
    err = dev::resident_blocks(linear_wmma_kernel<T, BN>, kThreads, bytes, limits.smem_optin, &per_sm);
  if (err != cudaSuccess) return err;
  // Row tiles per column block: enough CTAs to fill the device once; each walks its tiles with W staged once.
  const int64_t tiles = (p.rows + kRowsPerCta - 1) / kRowsPerCta;
  const int64_t column_blocks = p.np / BN;
  const int64_t fill = std::max<int64_t>(1, static_cast<int64_t>(per_sm) * limits.sms / column_blocks);
  const dim3 grid(static_cast<unsigned>(std::min(tiles, fill)), static_cast<unsigned>(column_blocks));
  linear_wmma_kernel<T, BN><<<grid, kThreads, bytes, s>>>(p);
  return cudaGetLastError();
}

/// Launches the product on `s`: no allocation, no synchronization.
template <class T>
cudaError_t launch(const Params& p, cudaStream_t s) {
  if (p.rows <= 0 || p.n <= 0) return cudaSuccess;
  if (p.rows <= kSmallRows) {
    linear_small_rows_kernel<T><<<p.np / 32, 32 * kSmallSlices, 0, s>>>(p);
    return cudaGetLastError();
  }
  return column_block(p.n) == 32 ? launch_bn<T, 32>(p, s) : launch_bn<T, 64>(p, s);
}

}  // namespace ie::lin
