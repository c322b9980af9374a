// The fused set's ie.Linear in strict fp32 (FFMA, no TF32): Y = act(A W + bias) (+ residual), A [rows, K] and Y
// [rows, N] float, the bias, the activation and the residual in the epilogue. Depends on CUDA alone
// (tests/kernels/linear_lab.cu builds it with nvcc).
//
// Why beside cuBLASLt (the reference set's fp32 product): the models' products are tall and narrow (rows = batch x
// slices, K 32 to 640), and cuBLASLt runs GELU as a second pass over Y (its GELU epilogue is the tanh form): the
// SSA's fc1 + GELU took 0.67 ms at 65536 samples against 0.32 for fc2's same FLOPs.
//
// A CTA of 256 threads takes 128 rows x 64 columns; a thread 8 rows (two groups of 4, 64 apart) x 4 columns, so each
// k costs two 16-byte loads of A and one of W for 32 FFMAs. K goes by 16: A's 128 x 16 block is loaded a k-step
// ahead into registers (16-byte rows) and stored transposed ([k][row], so a thread's 4 rows are one 16-byte load),
// W's 16 x 64 block by cp.async, both double-buffered. Needs K and N multiples of 4 and 16-byte aligned A, residual
// and Y (the planner declines other shapes to the reference set).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "layers/common/activation_device.cuh"
#include "layers/common/cp_async.cuh"

namespace ie::lin::ffma {

struct Params {
  const float* a = nullptr;         // rows x k
  const float* w = nullptr;         // kp x np, row-major, zero-padded (kp: k rounded up to 16, np: n to 64)
  const float* bias = nullptr;      // n, or null
  const float* residual = nullptr;  // rows x n, or null
  float* y = nullptr;               // rows x n
  int64_t rows = 0;
  int k = 0, n = 0, kp = 0, np = 0;
  dev::Act act = dev::Act::None;
};

constexpr int kBM = 128, kBN = 64, kBK = 16, kThreads = 256;
constexpr int kLdA = kBM + 4;  // As[k][row]: a thread's 4 rows 16-byte aligned

inline int padded_k(int k) { return (k + kBK - 1) / kBK * kBK; }
inline int padded_n(int n) { return (n + kBN - 1) / kBN * kBN; }

__global__ void __launch_bounds__(kThreads) linear_ffma_kernel(const Params p) {
  __shared__ __align__(16) float as[2][kBK][kLdA];
  __shared__ __align__(16) float ws[2][kBK][kBN];
  const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
  const int64_t row0 = static_cast<int64_t>(blockIdx.x) * kBM;
  const int col0 = blockIdx.y * kBN;
  // A's block: 128 rows x 4 float4 along k; this thread's two float4 (rows ar and ar + 64, k offset ak).
  const int ar = tid >> 2, ak = (tid & 3) * 4;
  auto load_a = [&](int k0, float4(&v)[2]) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int64_t r = row0 + ar + 64 * i;
      const int k = k0 + ak;
      v[i] = r < p.rows && k < p.k ? __ldg(reinterpret_cast<const float4*>(p.a + r * p.k + k))
                                   : make_float4(0.f, 0.f, 0.f, 0.f);  // K % 4 == 0: a float4 is all in or out
    }
  };
  auto store_a = [&](int buf, const float4(&v)[2]) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      as[buf][ak + 0][ar + 64 * i] = v[i].x;
      as[buf][ak + 1][ar + 64 * i] = v[i].y;
      as[buf][ak + 2][ar + 64 * i] = v[i].z;
      as[buf][ak + 3][ar + 64 * i] = v[i].w;
    }
  };
  // W's block: 16 rows x 16 float4, one per thread.
  auto load_w = [&](int buf, int k0) {
    const int wr = tid >> 4, wc = (tid & 15) * 4;
    dev::cp_async16(&ws[buf][wr][wc], p.w + static_cast<int64_t>(k0 + wr) * p.np + col0 + wc, true);
    dev::cp_async_commit();
  };
  float acc[8][4];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[r][c] = 0.f;
  float4 next[2];
  load_a(0, next);
  load_w(0, 0);
  store_a(0, next);
  const int steps = p.kp / kBK;
  for (int s = 0; s < steps; ++s) {
    const int buf = s & 1;
    if (s + 1 < steps) {  // the next k-step in flight while this one is multiplied
      load_a((s + 1) * kBK, next);
      load_w(buf ^ 1, (s + 1) * kBK);
      dev::cp_async_wait<1>();
    } else {
      dev::cp_async_wait<0>();
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      const float4 a0 = *reinterpret_cast<const float4*>(&as[buf][kk][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&as[buf][kk][64 + ty * 4]);
      const float4 b = *reinterpret_cast<const float4*>(&ws[buf][kk][tx * 4]);
      const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[r][c] = fmaf(av[r], bv[c], acc[r][c]);
    }
    if (s + 1 < steps) store_a(buf ^ 1, next);  // the other buffer: its last readers passed this step's barrier
    __syncthreads();
  }
  const int col = col0 + tx * 4;
  if (col >= p.n) return;  // N % 4 == 0: the thread's 4 columns are all in or all out
  float bias[4] = {0.f, 0.f, 0.f, 0.f};
  if (p.bias)
#pragma unroll
    for (int c = 0; c < 4; ++c) bias[c] = p.bias[col + c];
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const int64_t row = row0 + (r < 4 ? ty * 4 + r : 64 + ty * 4 + r - 4);
    if (row >= p.rows) continue;
    float v[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) v[c] = dev::activate(p.act, acc[r][c] + bias[c]);
    if (p.residual) {
      const float4 h = *reinterpret_cast<const float4*>(p.residual + row * p.n + col);
      v[0] += h.x, v[1] += h.y, v[2] += h.z, v[3] += h.w;
    }
    *reinterpret_cast<float4*>(p.y + row * p.n + col) = make_float4(v[0], v[1], v[2], v[3]);
  }
}

/// True when the kernel takes these sizes (K and N multiples of 4).
inline bool supports(int64_t k, int64_t n) { return k % 4 == 0 && n % 4 == 0 && k > 0 && n > 0; }

/// True when the pointers it reads and writes with 16-byte accesses are aligned.
inline bool aligned(const Params& p) {
  auto ok = [](const void* q) { return reinterpret_cast<uintptr_t>(q) % 16 == 0; };
  return ok(p.a) && ok(p.y) && (!p.residual || ok(p.residual));
}

/// Launches the product on `s`: no allocation, no synchronization.
inline cudaError_t launch(const Params& p, cudaStream_t s) {
  if (p.rows <= 0 || p.n <= 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>((p.rows + kBM - 1) / kBM), static_cast<unsigned>(p.np / kBN));
  linear_ffma_kernel<<<grid, kThreads, 0, s>>>(p);
  return cudaGetLastError();
}

}  // namespace ie::lin::ffma
