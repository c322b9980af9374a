// A float32 Linear on fp16 Tensor Cores by split operands: Y = act(A W + bias) (+ residual), A [rows, K] and Y
// [rows, N] float. Each operand is hi + lo with hi = fp16(x) and lo = fp16(x - hi), 22 significant bits of x; the
// product keeps hi hi + hi lo + lo hi (lo lo is below 2^-22 of it) in the MMA's float accumulator. So that fp16's
// range holds any float and lo stays out of fp16's subnormals where it matters, every A row is scaled by a power of
// two that puts its largest magnitude in [2^14, 2^15) before it is split, every W column likewise on the host, and
// the epilogue multiplies both scales out (exact). The engine's strict-fp32 Linear takes it for the shapes its build
// holds (linear_split_cuda.cu, linear_cuda.cu); tests/kernels/linear_split_lab.cu measures its accuracy against
// float64 and the FFMA kernel (layers/linear/linear_ffma.cuh) and its speed on the SSA's products (relative L2 <=
// 4.5e-7; 1.6-2.5x the FFMA kernel, 3.3-3.7 TB/s). Depends on CUDA alone.
//
// Why: the strict-fp32 products run on FFMA at 25-35 TFLOP/s (the SSA's at 65536 samples: 2.3 of 4.5 ms), while
// these tall and narrow products could run at the copy bandwidth on Tensor Cores, if the Tensor Cores kept float32's
// accuracy (one TF32 or bf16 rounding does not: rel L2 ~1e-3 against the fp32 mode's gate of 1e-5).
//
// A CTA of 8 warps keeps the split W^T in shared memory (fragment order: per pair of 8-column tiles and k-step, 32
// lanes x 16 bytes, hi blocks then lo blocks) and walks 16-row tiles a warp at a time: a warp loads its tile's whole
// A (every load in flight at once) as the MMA's A fragments, finds each row's scale across the quad, splits, and
// runs three MMAs per (8 columns, k-step), N in chunks of 64 columns. K = 16 KT, N = 16 NP compiled in (the lab's
// shapes). A LayerNorm may be fused at either end (launch_fused: of A's rows in registers before the split, of Y's
// rows after the residual), as the strict-fp32 SSA's split sequence does (layers/sample_resident/split_sequence.h).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "layers/common/activation_device.cuh"
#include "layers/common/mma_fragment_order.h"
#include "layers/common/mma_sync.cuh"

namespace ie::lin::split {

struct Params {
  const float* a = nullptr;          // rows x k
  const uint4* w = nullptr;          // split W^T (pack_split_weights, on the host): hi blocks, then lo blocks
  const float* col_scale = nullptr;  // n: 2^-e of each column's scaling
  const float* bias = nullptr;       // n, or null
  const float* residual = nullptr;   // rows x n, or null
  float* y = nullptr;                // rows x n
  int64_t rows = 0;
  int k = 0, n = 0;
  dev::Act act = dev::Act::None;
  // A LayerNorm fused at either end (the kernel's kIn and kOut): over each A row before the split (k values of
  // in_gamma, in_beta), or over each Y row after the bias, activation and residual (n values, N within one chunk:
  // a pre-LN transformer's h + Linear(y) and the LayerNorm that reads it). beta may be null.
  const float* in_gamma = nullptr;
  const float* in_beta = nullptr;
  const float* out_gamma = nullptr;
  const float* out_beta = nullptr;
  float in_eps = 1e-5f, out_eps = 1e-5f;
};

// A LayerNorm fused into the product at one end: none, or the LayerNorm then no activation or the erf GELU.
enum class Norm : int { Off = 0, Plain = 1, Gelu = 2 };

constexpr int kWarps = 8, kThreads = 32 * kWarps;

/// W split for the kernel (host): each column scaled by the power of two that puts its largest magnitude in
/// [2^14, 2^15), hi = fp16 and lo = fp16 of the rest, each in fragment order (hi blocks, then lo blocks), and the
/// columns' 2^-e for the epilogue. w(i, j): W's element at K index i, column j (k and n multiples of 16).
struct SplitWeights {
  std::vector<uint16_t> blob;
  std::vector<float> col_scale;
};
template <class W>
SplitWeights pack_split_weights(W&& w, int k, int n) {
  std::vector<uint16_t> hi(static_cast<size_t>(n) * k), lo(hi.size());
  SplitWeights s;
  s.col_scale.resize(n);
  for (int j = 0; j < n; ++j) {
    float m = 0.f;
    for (int i = 0; i < k; ++i) m = std::fmax(m, std::fabs(w(i, j)));
    const int e = m > 0.f && std::isfinite(m) ? std::ilogb(m) : 0;
    const float c = std::ldexp(1.f, 14 - e);
    s.col_scale[j] = std::ldexp(1.f, e - 14);
    for (int i = 0; i < k; ++i) {
      const float v = w(i, j) * c;
      const __half h = __float2half_rn(v);
      hi[static_cast<size_t>(j) * k + i] = __half_as_ushort(h);
      lo[static_cast<size_t>(j) * k + i] = __half_as_ushort(__float2half_rn(v - __half2float(h)));
    }
  }
  s.blob = fragment_order(hi, n, k);
  const std::vector<uint16_t> l = fragment_order(lo, n, k);
  s.blob.insert(s.blob.end(), l.begin(), l.end());
  return s;
}
constexpr int kChunkPairs = 4;  // 64 columns of N at a time

// The power of two s with m s in [2^14, 2^15) for a row's largest magnitude m (1 for m = 0, Inf or NaN, so that
// they reach the products as they are; rows below 2^-112 get 2^126 and fewer bits), as s and 1 / s.
__device__ __forceinline__ float2 row_scale(float m) {
  const int e = static_cast<int>(__float_as_uint(m) >> 23);  // m >= 0
  const int f = (m == 0.f || e == 255) ? 127 : min(268 - e, 253);
  return make_float2(__uint_as_float(static_cast<uint32_t>(f) << 23),
                     __uint_as_float(static_cast<uint32_t>(254 - f) << 23));
}

// x (two consecutive values of a row) times s as hi and lo fp16 pairs.
__device__ __forceinline__ void split_pair(float2 x, float s, uint32_t& hi, uint32_t& lo) {
  const float a = x.x * s, b = x.y * s;
  const __half2 h = __floats2half2_rn(a, b);
  const float2 hf = __half22float2(h);
  const __half2 l = __floats2half2_rn(a - hf.x, b - hf.y);
  hi = *reinterpret_cast<const uint32_t*>(&h);
  lo = *reinterpret_cast<const uint32_t*>(&l);
}

// A 16-row tile's A fragments straight from global memory, every load in flight at once: this lane's rows r0 (= the
// tile's first + g) and r0 + 8 of a matrix with rows `ld` floats apart from `a` (zeros from row `rows` on).
template <int KT>
__device__ __forceinline__ void load_rows(const float* a, int64_t ld, int64_t r0, int64_t rows, float2 (&x)[KT][4]) {
  const int q = threadIdx.x & 3;
#pragma unroll
  for (int kk = 0; kk < KT; ++kk)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int64_t r = i & 1 ? r0 + 8 : r0;
      x[kk][i] = r < rows ? __ldg(reinterpret_cast<const float2*>(a + r * ld + kk * 16 + 2 * q + 8 * (i >> 1)))
                          : make_float2(0.f, 0.f);
    }
}

// Sum over the quad that holds a row (lanes 4g .. 4g + 3).
__device__ __forceinline__ float quad_sum(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

// The two rows' mean and 1 / sqrt(var + eps) from each lane's `per_lane` values of them (two passes over registers,
// as the LayerNorm kernels do: no cancellation from a sum of squares), n values a row.
template <int kVals>
__device__ __forceinline__ void row_stats(const float (&a)[kVals], const float (&b)[kVals], int n, float eps,
                                          float2& mean, float2& inv) {
  float s0 = 0.f, s1 = 0.f;
#pragma unroll
  for (int i = 0; i < kVals; ++i) s0 += a[i], s1 += b[i];
  const float rn = 1.f / static_cast<float>(n);
  mean = make_float2(quad_sum(s0) * rn, quad_sum(s1) * rn);
  float v0 = 0.f, v1 = 0.f;
#pragma unroll
  for (int i = 0; i < kVals; ++i) {
    const float d0 = a[i] - mean.x, d1 = b[i] - mean.y;
    v0 = fmaf(d0, d0, v0), v1 = fmaf(d1, d1, v1);
  }
  inv = make_float2(rsqrtf(quad_sum(v0) * rn + eps), rsqrtf(quad_sum(v1) * rn + eps));
}

template <Norm kNorm>
__device__ __forceinline__ float2 norm_pair(float2 v, float mean, float inv, const float* gamma, const float* beta,
                                            int c) {
  const float2 g = __ldg(reinterpret_cast<const float2*>(gamma + c));
  const float2 b = beta ? __ldg(reinterpret_cast<const float2*>(beta + c)) : make_float2(0.f, 0.f);
  float2 r = make_float2(fmaf((v.x - mean) * inv, g.x, b.x), fmaf((v.y - mean) * inv, g.y, b.y));
  if constexpr (kNorm == Norm::Gelu) r = make_float2(dev::gelu_erf(r.x), dev::gelu_erf(r.y));
  return r;
}

// The prologue's LayerNorm of the tile's two rows in place in the A fragments (rows past the end are zeros: their
// results are not stored).
template <int KT, Norm kIn>
__device__ __forceinline__ void normalize_a(const Params& p, float2 (&x)[KT][4]) {
  if constexpr (kIn != Norm::Off) {
    const int q = threadIdx.x & 3;
    float a[4 * KT], b[4 * KT];
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
      a[4 * kk] = x[kk][0].x, a[4 * kk + 1] = x[kk][0].y, a[4 * kk + 2] = x[kk][2].x, a[4 * kk + 3] = x[kk][2].y;
      b[4 * kk] = x[kk][1].x, b[4 * kk + 1] = x[kk][1].y, b[4 * kk + 2] = x[kk][3].x, b[4 * kk + 3] = x[kk][3].y;
    }
    float2 mean, inv;
    row_stats(a, b, 16 * KT, p.in_eps, mean, inv);
#pragma unroll
    for (int kk = 0; kk < KT; ++kk)
#pragma unroll
      for (int i = 0; i < 4; ++i)
        x[kk][i] = norm_pair<kIn>(x[kk][i], i & 1 ? mean.y : mean.x, i & 1 ? inv.y : inv.x, p.in_gamma, p.in_beta,
                                  kk * 16 + 2 * q + 8 * (i >> 1));
  }
}

// The tile's two rows' scales (across the quad: s.x the scale, s.y its inverse) and their split A fragments.
template <int KT>
__device__ __forceinline__ void split_rows(const float2 (&x)[KT][4], float2& s0, float2& s1, uint32_t (&ah)[KT][4],
                                           uint32_t (&al)[KT][4]) {
  float m0 = 0.f, m1 = 0.f;  // the rows' largest magnitudes (fmaxf passes NaN over: NaN reaches the products)
#pragma unroll
  for (int kk = 0; kk < KT; ++kk) {
    m0 = fmaxf(m0, fmaxf(fmaxf(fabsf(x[kk][0].x), fabsf(x[kk][0].y)), fmaxf(fabsf(x[kk][2].x), fabsf(x[kk][2].y))));
    m1 = fmaxf(m1, fmaxf(fmaxf(fabsf(x[kk][1].x), fabsf(x[kk][1].y)), fmaxf(fabsf(x[kk][3].x), fabsf(x[kk][3].y))));
  }
#pragma unroll
  for (int d = 1; d < 4; d <<= 1) {
    m0 = fmaxf(m0, __shfl_xor_sync(0xffffffffu, m0, d));
    m1 = fmaxf(m1, __shfl_xor_sync(0xffffffffu, m1, d));
  }
  s0 = row_scale(m0), s1 = row_scale(m1);
#pragma unroll
  for (int kk = 0; kk < KT; ++kk)
#pragma unroll
    for (int i = 0; i < 4; ++i) split_pair(x[kk][i], i & 1 ? s1.x : s0.x, ah[kk][i], al[kk][i]);
}

// The products of k-steps [k0, k0 + KC) and pairs of 8-column tiles [j0, j0 + NC) of a split W^T with KT k-steps and
// NP pairs (its blocks in sw, fragment order), accumulated into acc.
template <int KT, int NP, int KC, int NC>
__device__ __forceinline__ void block_products(const uint4* sw, const uint32_t (&ah)[KC][4],
                                               const uint32_t (&al)[KC][4], int k0, int j0, float (&acc)[2 * NC][4]) {
  constexpr int kBlocks = NP * KT * 32;
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int kk = 0; kk < KC; ++kk)
#pragma unroll
    for (int jp = 0; jp < NC; ++jp) {
      const int blk = ((j0 + jp) * KT + k0 + kk) * 32 + lane;
      const uint4 bh = sw[blk], bl = sw[kBlocks + blk];
      dev::mma_16816<__half>(acc[2 * jp], al[kk], bh.x, bh.y);  // the small terms first
      dev::mma_16816<__half>(acc[2 * jp], ah[kk], bl.x, bl.y);
      dev::mma_16816<__half>(acc[2 * jp], ah[kk], bh.x, bh.y);
      dev::mma_16816<__half>(acc[2 * jp + 1], al[kk], bh.z, bh.w);
      dev::mma_16816<__half>(acc[2 * jp + 1], ah[kk], bl.z, bl.w);
      dev::mma_16816<__half>(acc[2 * jp + 1], ah[kk], bh.z, bh.w);
    }
}

// The products of one chunk of NC pairs of 8-column tiles from pair j0, over every k-step.
template <int KT, int NP, int NC>
__device__ __forceinline__ void chunk_products(const uint4* sw, const uint32_t (&ah)[KT][4],
                                               const uint32_t (&al)[KT][4], int j0, float (&acc)[2 * NC][4]) {
  block_products<KT, NP, KT, NC>(sw, ah, al, 0, j0, acc);
}

// One warp's 16-row tile t from its A fragments x (i = 0: row g, columns 2q, 2q + 1; 1: row g + 8; 2: row g,
// + 8; 3: row g + 8, + 8): the rows' scales (across the quad), the split, the products, the epilogue. The
// activation and whether there is a residual are compiled in (a run-time switch per element was a quarter of the
// executed instructions); a chunk's residual values are loaded before its products, so that their latency passes
// under the MMAs (loaded in the epilogue, each waited for in turn behind the stores).
template <int KT, int NP, dev::Act kAct, bool kRes, Norm kOut = Norm::Off>
__device__ __forceinline__ void tile_product(const Params& p, const uint4* sw, const float2 (&x)[KT][4], int64_t t) {
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int64_t r0 = t * 16 + g, r1 = r0 + 8;
  float2 s0, s1;
  uint32_t ah[KT][4], al[KT][4];
  split_rows(x, s0, s1, ah, al);
  // N in chunks of up to 64 columns (32 with a residual beside a long K: registers; the whole row for the
  // epilogue's LayerNorm), the split A reused.
  constexpr int kPairs = kOut != Norm::Off ? NP : kRes && KT > 4 ? kChunkPairs / 2 : kChunkPairs;
#pragma unroll
  for (int j0 = 0; j0 < NP; j0 += kPairs) {
    constexpr int NC = NP < kPairs ? NP : kPairs;
    float2 res[2 * NC][2];
    if constexpr (kRes) {
#pragma unroll
      for (int j = 0; j < 2 * NC; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t r = h ? r1 : r0;
          res[j][h] = r < p.rows
                          ? __ldg(reinterpret_cast<const float2*>(p.residual + r * p.n + (2 * j0 + j) * 8 + 2 * q))
                          : make_float2(0.f, 0.f);
        }
    }
    float acc[2 * NC][4] = {};
    chunk_products<KT, NP, NC>(sw, ah, al, j0, acc);
    float2 v[2 * NC][2];
#pragma unroll
    for (int j = 0; j < 2 * NC; ++j) {
      const int c = (2 * j0 + j) * 8 + 2 * q;
      const float2 cs = __ldg(reinterpret_cast<const float2*>(p.col_scale + c));
      const float2 b = p.bias ? __ldg(reinterpret_cast<const float2*>(p.bias + c)) : make_float2(0.f, 0.f);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float is = h ? s1.y : s0.y;
        v[j][h] = make_float2(dev::activate(kAct, acc[j][2 * h] * is * cs.x + b.x),
                              dev::activate(kAct, acc[j][2 * h + 1] * is * cs.y + b.y));
        if constexpr (kRes) v[j][h].x += res[j][h].x, v[j][h].y += res[j][h].y;
      }
    }
    if constexpr (kOut != Norm::Off) {  // the whole row is in this chunk (launch_fused checks N)
      float a[4 * NC], bb[4 * NC];
#pragma unroll
      for (int j = 0; j < 2 * NC; ++j)
        a[2 * j] = v[j][0].x, a[2 * j + 1] = v[j][0].y, bb[2 * j] = v[j][1].x, bb[2 * j + 1] = v[j][1].y;
      float2 mean, inv;
      row_stats(a, bb, 16 * NC, p.out_eps, mean, inv);
#pragma unroll
      for (int j = 0; j < 2 * NC; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          v[j][h] = norm_pair<kOut>(v[j][h], h ? mean.y : mean.x, h ? inv.y : inv.x, p.out_gamma, p.out_beta,
                                    (2 * j0 + j) * 8 + 2 * q);
    }
#pragma unroll
    for (int j = 0; j < 2 * NC; ++j) {
      const int c = (2 * j0 + j) * 8 + 2 * q;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t r = h ? r1 : r0;
        if (r < p.rows) *reinterpret_cast<float2*>(p.y + r * p.n + c) = v[j][h];
      }
    }
  }
}

// Each warp loads its tiles' A straight from global memory into registers, every load of a tile in flight at once.
template <int KT, int NP, dev::Act kAct, bool kRes, Norm kIn = Norm::Off, Norm kOut = Norm::Off>
__global__ void __launch_bounds__(kThreads, 2) linear_split_kernel(const Params p) {
  extern __shared__ uint4 sw[];  // hi: [NP][KT][32], then lo
  constexpr int kBlocks = NP * KT * 32;
  for (int i = threadIdx.x; i < 2 * kBlocks; i += kThreads) sw[i] = __ldg(p.w + i);
  __syncthreads();
  const int g = (threadIdx.x & 31) >> 2;
  const int64_t tiles = (p.rows + 15) / 16;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * kWarps + (threadIdx.x >> 5); t < tiles;
       t += static_cast<int64_t>(gridDim.x) * kWarps) {
    float2 x[KT][4];
    load_rows(p.a, p.k, t * 16 + g, p.rows, x);
    normalize_a<KT, kIn>(p, x);
    tile_product<KT, NP, kAct, kRes, kOut>(p, sw, x, t);
  }
}

template <int KT, int NP>
constexpr int smem_bytes() {
  return 2 * NP * KT * 32 * 16;
}

template <int KT, int NP, dev::Act kAct, bool kRes, Norm kIn = Norm::Off, Norm kOut = Norm::Off>
cudaError_t launch_kernel(const Params& p, int sms, cudaStream_t s) {
  auto k = linear_split_kernel<KT, NP, kAct, kRes, kIn, kOut>;
  static_assert(smem_bytes<KT, NP>() <= 48 * 1024, "W's split blocks within the default shared memory of a CTA");
  const int64_t ctas = (p.rows + 16 * kWarps - 1) / (16 * kWarps);
  const int grid = static_cast<int>(ctas < 2 * sms ? ctas : 2 * sms);
  k<<<grid, kThreads, smem_bytes<KT, NP>(), s>>>(p);
  return cudaGetLastError();
}

// Persistent: as many CTAs as fit (two per SM by the launch bounds), each walking 16-row tiles. K = 16 KT and
// N = 16 NP must be p.k and p.n; A, Y and the residual 8-byte aligned; no activation or GELU.
template <int KT, int NP>
cudaError_t launch(const Params& p, int sms, cudaStream_t s) {
  if (p.k != 16 * KT || p.n != 16 * NP) return cudaErrorInvalidValue;
  if (p.rows < 1) return cudaSuccess;
  const bool r = p.residual != nullptr;
  if (p.act == dev::Act::Gelu)
    return r ? launch_kernel<KT, NP, dev::Act::Gelu, true>(p, sms, s)
             : launch_kernel<KT, NP, dev::Act::Gelu, false>(p, sms, s);
  if (p.act != dev::Act::None) return cudaErrorInvalidValue;
  return r ? launch_kernel<KT, NP, dev::Act::None, true>(p, sms, s)
           : launch_kernel<KT, NP, dev::Act::None, false>(p, sms, s);
}

// With a LayerNorm fused at an end (kIn: of A's rows, its gamma and beta in p.in_*; kOut: of Y's rows, N within one
// chunk of 64 columns, p.out_*), the activation and residual compiled in as well. Same requirements as launch().
template <int KT, int NP, dev::Act kAct, bool kRes, Norm kIn, Norm kOut>
cudaError_t launch_fused(const Params& p, int sms, cudaStream_t s) {
  static_assert(kOut == Norm::Off || NP <= kChunkPairs, "the epilogue's LayerNorm needs the whole row in one chunk");
  if (p.k != 16 * KT || p.n != 16 * NP || p.act != kAct || (p.residual != nullptr) != kRes)
    return cudaErrorInvalidValue;
  if ((kIn != Norm::Off && !p.in_gamma) || (kOut != Norm::Off && !p.out_gamma)) return cudaErrorInvalidValue;
  if (p.rows < 1) return cudaSuccess;
  return launch_kernel<KT, NP, kAct, kRes, kIn, kOut>(p, sms, s);
}

}  // namespace ie::lin::split
