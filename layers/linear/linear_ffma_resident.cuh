// ie.Linear in strict fp32 (FFMA, no TF32) with W resident in shared memory: Y = act(norm(A) W + bias)
// (+ residual), optionally split by columns into up to three outputs (q | k | v as one product). Depends on CUDA
// alone (tests/kernels/linear_resident_lab.cu builds it with nvcc).
//
// Why beside linear_ffma.cuh (a CTA per 128 x 64 output block, W staged per 16 k): the models' products are tall
// and narrow (K 32 to 128, N 32 to 192, hundreds of thousands of rows), so that kernel restarts its k pipeline
// every 4-8 steps and stages W again for every block; it reached 44-55% of the FFMA rate. Here a persistent CTA
// copies W (K x N, up to ~100 KB) into shared memory once and walks row tiles: the next tile's A arrives by
// cp.async while this one is multiplied, every 64-column chunk of N reuses the tile, and the epilogue writes each
// output once.
//
// Optional LayerNorm prologue (gamma non-null): each A row is normalized over its K values in shared memory (two
// threads per row, two-pass statistics in float) and activated before the product, so a LayerNorm feeding only
// products costs no pass of its own over memory.
//
// Thread layout: 2 x BM threads; thread (ty, tx) with ty < BM / 8, tx < 16 takes rows ty + (BM / 8) i (i < 8) and
// columns 4 tx .. 4 tx + 3 of a 64-column chunk; per 4 k it loads 8 A float4 (two distinct rows per warp: a
// broadcast) and 4 W float4 for 128 FFMAs. A rows are padded by 4 floats so a warp's two rows fall in different
// banks. Needs K and N multiples of 4 (and each output's width), 16-byte aligned A, Y and residual.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layers/common/activation_device.cuh"
#include "layers/common/cp_async.cuh"
#include "layers/linear/linear_ffma.cuh"

namespace ie::lin::ffma_rs {

constexpr int kMaxOutputs = 3;
constexpr int kChunk = ffma::kBN;  // columns per pass over a tile: W's columns padded as linear_ffma.cuh pads them

struct Params {
  const float* a = nullptr;  // rows x k
  const float* w = nullptr;  // k x np, row-major, columns zero-padded to np (padded_n: n rounded up to 64)
  const float* bias = nullptr;
  const float* residual = nullptr;                      // rows x n (one output only), or null
  float* y[kMaxOutputs] = {nullptr, nullptr, nullptr};  // output o: rows x seg, columns [o seg, (o + 1) seg)
  int outputs = 1, seg = 0;
  int64_t rows = 0;
  int k = 0, n = 0, np = 0;
  dev::Act act = dev::Act::None;
  const float* gamma = nullptr;  // LayerNorm over A's rows before the product (k values each), or null
  const float* beta = nullptr;
  float eps = 1e-5f;
  dev::Act norm_act = dev::Act::None;
};

using ffma::padded_n;

/// Dynamic shared memory of one CTA: W, two A tiles, gamma and beta.
inline size_t smem_bytes(int bm, int k, int n, bool norm) {
  return sizeof(float) * (static_cast<size_t>(k) * padded_n(n) + 2 * static_cast<size_t>(bm) * (k + 4) +
                          (norm ? 2 * static_cast<size_t>(k) : 0));
}

/// True when the kernel takes these sizes: K, N and the output width multiples of 4, the outputs splitting N.
inline bool supports(int64_t k, int64_t n, int outputs, int64_t seg) {
  return k > 0 && n > 0 && k % 4 == 0 && n % 4 == 0 && outputs >= 1 && outputs <= kMaxOutputs && seg % 4 == 0 &&
         seg * outputs == n;
}

// Threads of a CTA taking BM rows with TN columns per thread (a thread takes 8 rows).
__host__ __device__ constexpr int threads_for(int bm, int tn) { return bm / 8 * (kChunk / tn); }

// KC: K known at compile time (full unroll), or 0 for any K (multiple of 4). TN: columns per thread (4 or 8).
template <int BM, int KC, bool kNorm, int TN = 4>
__global__ void __launch_bounds__(threads_for(BM, TN)) linear_ffma_resident_kernel(const Params p) {
  constexpr int kTx = kChunk / TN, kThreads = threads_for(BM, TN), kTy = BM / 8, kTpr = kThreads / BM;
  extern __shared__ float4 smem_f4[];
  const int k = KC > 0 ? KC : p.k;
  const int lda = k + 4, np = p.np, k4 = k / 4;
  float* ws = reinterpret_cast<float*>(smem_f4);
  float* as = ws + static_cast<size_t>(k) * np;
  float* gb = as + 2 * BM * lda;  // gamma, beta
  const int tid = threadIdx.x, tx = tid % kTx, ty = tid / kTx;
  const int64_t tiles = (p.rows + BM - 1) / BM;
  int64_t tile = blockIdx.x;
  if (tile >= tiles) return;

  for (int i = tid; i < k * np / 4; i += kThreads) dev::cp_async16(ws + 4 * i, p.w + 4 * i, true);
  if constexpr (kNorm)
    for (int i = tid; i < k4; i += kThreads) {
      dev::cp_async16(gb + 4 * i, p.gamma + 4 * i, true);
      dev::cp_async16(gb + k + 4 * i, p.beta + 4 * i, true);
    }
  auto issue_a = [&](int64_t t, int buf) {
    const int64_t row0 = t * BM;
    float* dst = as + buf * BM * lda;
    for (int i = tid; i < BM * k4; i += kThreads) {
      const int r = i / k4, c = i - r * k4;
      const bool valid = row0 + r < p.rows;
      dev::cp_async16(dst + r * lda + 4 * c, p.a + (valid ? (row0 + r) * k + 4 * c : 0), valid);
    }
  };
  issue_a(tile, 0);
  dev::cp_async_commit();

  for (int buf = 0; tile < tiles; tile += gridDim.x, buf ^= 1) {
    if (tile + gridDim.x < tiles) {  // the next tile in flight while this one is multiplied
      issue_a(tile + gridDim.x, buf ^ 1);
      dev::cp_async_commit();
      dev::cp_async_wait<1>();
    } else {
      dev::cp_async_wait<0>();
    }
    __syncthreads();
    float* at = as + buf * BM * lda;
    if constexpr (kNorm) {  // kTpr threads per row, its float4s interleaved
      float4* row = reinterpret_cast<float4*>(at + (tid / kTpr) * lda);
      const float4* g4 = reinterpret_cast<const float4*>(gb);
      const float4* b4 = reinterpret_cast<const float4*>(gb + k);
      const int h = tid % kTpr;
      float s = 0.f;
      for (int c = h; c < k4; c += kTpr) {
        const float4 v = row[c];
        s += (v.x + v.y) + (v.z + v.w);
      }
      if constexpr (kTpr == 2) s += __shfl_xor_sync(0xffffffffu, s, 1);
      const float mean = s / k;
      float d = 0.f;
      for (int c = h; c < k4; c += kTpr) {
        const float4 v = row[c];
        const float x0 = v.x - mean, x1 = v.y - mean, x2 = v.z - mean, x3 = v.w - mean;
        d += (x0 * x0 + x1 * x1) + (x2 * x2 + x3 * x3);
      }
      if constexpr (kTpr == 2) d += __shfl_xor_sync(0xffffffffu, d, 1);
      const float rstd = rsqrtf(d / k + p.eps);
      for (int c = h; c < k4; c += kTpr) {
        const float4 v = row[c], g = g4[c], b = b4[c];
        row[c] = make_float4(dev::activate(p.norm_act, (v.x - mean) * rstd * g.x + b.x),
                             dev::activate(p.norm_act, (v.y - mean) * rstd * g.y + b.y),
                             dev::activate(p.norm_act, (v.z - mean) * rstd * g.z + b.z),
                             dev::activate(p.norm_act, (v.w - mean) * rstd * g.w + b.w));
      }
      __syncthreads();
    }
    const float* arow = at + ty * lda;
    const int64_t row0 = tile * BM;
    for (int c0 = 0; c0 < p.n; c0 += kChunk) {
      float acc[8][TN];
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
      const float* wcol = ws + c0 + TN * tx;
#pragma unroll(KC > 0 ? KC / 4 : 4)
      for (int kk = 0; kk < k; kk += 4) {
        float4 av[8], bv[4][TN / 4];
#pragma unroll
        for (int i = 0; i < 8; ++i) av[i] = *reinterpret_cast<const float4*>(arow + i * kTy * lda + kk);
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
          for (int u = 0; u < TN / 4; ++u) bv[j][u] = *reinterpret_cast<const float4*>(wcol + (kk + j) * np + 4 * u);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const float a4[4] = {av[i].x, av[i].y, av[i].z, av[i].w};
#pragma unroll
          for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int u = 0; u < TN / 4; ++u) {
              acc[i][4 * u + 0] = fmaf(a4[j], bv[j][u].x, acc[i][4 * u + 0]);
              acc[i][4 * u + 1] = fmaf(a4[j], bv[j][u].y, acc[i][4 * u + 1]);
              acc[i][4 * u + 2] = fmaf(a4[j], bv[j][u].z, acc[i][4 * u + 2]);
              acc[i][4 * u + 3] = fmaf(a4[j], bv[j][u].w, acc[i][4 * u + 3]);
            }
        }
      }
#pragma unroll
      for (int u = 0; u < TN / 4; ++u) {
        const int col = c0 + TN * tx + 4 * u;
        if (col >= p.n) break;                            // N % 4 == 0: a group of 4 columns is all in or all out
        const int o = col / p.seg, oc = col - o * p.seg;  // seg % 4 == 0: one output holds all 4
        float* y = o == 0 ? p.y[0] : o == 1 ? p.y[1] : p.y[2];
        float bias[4] = {0.f, 0.f, 0.f, 0.f};
        if (p.bias)
#pragma unroll
          for (int j = 0; j < 4; ++j) bias[j] = __ldg(p.bias + col + j);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const int64_t row = row0 + ty + i * kTy;
          if (row >= p.rows) break;  // rows ascend with i
          float v[4];
#pragma unroll
          for (int j = 0; j < 4; ++j) v[j] = dev::activate(p.act, acc[i][4 * u + j] + bias[j]);
          if (p.residual) {
            const float4 h = __ldg(reinterpret_cast<const float4*>(p.residual + row * p.n + col));
            v[0] += h.x, v[1] += h.y, v[2] += h.z, v[3] += h.w;
          }
          *reinterpret_cast<float4*>(y + row * p.seg + oc) = make_float4(v[0], v[1], v[2], v[3]);
        }
      }
    }
    __syncthreads();  // every thread is done with this buffer before the next-but-one tile lands in it
  }
}

template <int BM, int KC, bool kNorm, int TN = 4>
cudaError_t prepare_kernel(size_t smem) {
  return cudaFuncSetAttribute(linear_ffma_resident_kernel<BM, KC, kNorm, TN>,
                              cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
}

/// Resident CTAs per SM for this instantiation and shared memory (0: it does not fit).
template <int BM, int KC, bool kNorm, int TN = 4>
int ctas_per_sm(size_t smem) {
  int per_sm = 0;
  if (prepare_kernel<BM, KC, kNorm, TN>(smem) != cudaSuccess) return 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, linear_ffma_resident_kernel<BM, KC, kNorm, TN>,
                                                    threads_for(BM, TN), smem) != cudaSuccess)
    return 0;
  return per_sm;
}

/// Launches on `s` with `grid` persistent CTAs (at most one per tile is useful); prepare_kernel must have run for
/// this shared memory size. No allocation, no synchronization.
template <int BM, int KC, bool kNorm, int TN = 4>
cudaError_t launch(const Params& p, int grid, cudaStream_t s) {
  if (p.rows <= 0 || p.n <= 0) return cudaSuccess;
  const int64_t tiles = (p.rows + BM - 1) / BM;
  const int g = static_cast<int>(tiles < grid ? tiles : grid);
  const size_t smem = smem_bytes(BM, p.k, p.n, kNorm);
  linear_ffma_resident_kernel<BM, KC, kNorm, TN><<<g, threads_for(BM, TN), smem, s>>>(p);
  return cudaGetLastError();
}

}  // namespace ie::lin::ffma_rs
