// The MLP of a pre-LN transformer block in strict fp32 on the split-operand Tensor Core products of linear_split.cuh,
// in one kernel: y = x + fc2(GELU(fc1(LN(x)))) (then LN'(y) when kOut), one warp per 16 rows, the split sequence's
// (layers/sample_resident/split_sequence.h). The hidden rows never reach memory: fc1's accumulators for 16 CH hidden
// columns at a time (m16n8 C fragments of two neighbouring 8-column tiles) are, after bias and GELU, the m16k16 A
// fragments of fc2's k-steps over those columns, split with their own row scales and accumulated into fc2's float
// accumulators, which are first brought to the new row scale (a power of two: exact). Apart, fc1 writes and fc2
// reads 2 x hidden floats a row (at the SSA's width 64 and MLP of 128, 1 GB of 1.2 a block at 65536 samples).
// fc1 and fc2 are packed as linear_split.cuh packs them (pack_split_weights), both in shared memory. Depends on CUDA
// alone.
#pragma once

#include "layers/linear/linear_split.cuh"
#include "layers/linear/linear_split_latent.cuh"

namespace ie::lin::split {

struct MlpParams {
  const float* x = nullptr;   // [rows, width]
  float* y = nullptr;         // [rows, width], may be x (each warp reads its rows before it writes them)
  const uint4* w1 = nullptr;  // fc1: K = width, N = hidden
  const uint4* w2 = nullptr;  // fc2: K = hidden, N = width
  const float* cs1 = nullptr;
  const float* b1 = nullptr;
  const float* cs2 = nullptr;
  const float* b2 = nullptr;
  const float* gamma = nullptr;  // the LayerNorm before fc1 (width values; beta may be null)
  const float* beta = nullptr;
  float eps = 1e-5f;
  const float* out_gamma = nullptr;  // kOut: the LayerNorm of y's rows after the residual
  const float* out_beta = nullptr;
  float out_eps = 1e-5f;
  int64_t rows = 0;
};

// width = 16 DT, hidden = 16 HT, taken 16 CH hidden columns at a time; the LayerNorm after the residual kOut.
template <int DT, int HT, int CH, Norm kOut>
__global__ void __launch_bounds__(kThreads, 2) split_mlp_kernel(const MlpParams p) {
  static_assert(HT % CH == 0 && DT <= kChunkPairs, "whole chunks of the hidden row; y's row in one chunk");
  constexpr int kW1 = 2 * HT * DT * 32, kW2 = 2 * DT * HT * 32, W = 16 * DT;
  extern __shared__ uint4 sw[];
  for (int i = threadIdx.x; i < kW1; i += kThreads) sw[i] = __ldg(p.w1 + i);
  for (int i = threadIdx.x; i < kW2; i += kThreads) sw[kW1 + i] = __ldg(p.w2 + i);
  __syncthreads();
  const uint4* sw2 = sw + kW1;
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  Params norm;  // normalize_a's parameters
  norm.in_gamma = p.gamma, norm.in_beta = p.beta, norm.in_eps = p.eps;
  const int64_t tiles = (p.rows + 15) / 16;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * kWarps + (threadIdx.x >> 5); t < tiles;
       t += static_cast<int64_t>(gridDim.x) * kWarps) {
    const int64_t r0 = t * 16 + g, r1 = r0 + 8;
    float2 x[DT][4];
    load_rows(p.x, W, r0, p.rows, x);
    normalize_a<DT, Norm::Plain>(norm, x);
    float2 s0, s1;
    uint32_t ah[DT][4], al[DT][4];
    split_rows(x, s0, s1, ah, al);
    float out[2 * DT][4] = {};
    float2 back = make_float2(1.f, 1.f);  // 1 / the row scales out's sums are at (none yet)
#pragma unroll 1
    for (int c = 0; c < HT / CH; ++c) {
      float acc[2 * CH][4] = {};
      chunk_products<DT, HT, CH>(sw, ah, al, c * CH, acc);
      // bias + GELU as fc2's A fragments: k-step kk holds 8-column tiles 2 kk and 2 kk + 1 of this chunk.
      float2 u[CH][4];
#pragma unroll
      for (int kk = 0; kk < CH; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int j = 2 * kk + (i >> 1), h = i & 1, col = c * 16 * CH + j * 8 + 2 * q;
          const float2 cs = __ldg(reinterpret_cast<const float2*>(p.cs1 + col));
          const float2 b = __ldg(reinterpret_cast<const float2*>(p.b1 + col));
          const float is = h ? s1.y : s0.y;
          u[kk][i] = make_float2(dev::gelu_erf(acc[j][2 * h] * is * cs.x + b.x),
                                 dev::gelu_erf(acc[j][2 * h + 1] * is * cs.y + b.y));
        }
      float2 us0, us1;
      uint32_t uh[CH][4], ul[CH][4];
      split_rows(u, us0, us1, uh, ul);
      const float m0 = us0.x * back.x, m1 = us1.x * back.y;  // out's sums to this chunk's row scales
#pragma unroll
      for (int j = 0; j < 2 * DT; ++j) out[j][0] *= m0, out[j][1] *= m0, out[j][2] *= m1, out[j][3] *= m1;
      back = make_float2(us0.y, us1.y);
      block_products<HT, DT, CH, DT>(sw2, uh, ul, c * CH, 0, out);  // fc2's k-steps of this chunk
    }
    float2 v[2 * DT][2];
#pragma unroll
    for (int j = 0; j < 2 * DT; ++j) {
      const int col = j * 8 + 2 * q;
      const float2 cs = __ldg(reinterpret_cast<const float2*>(p.cs2 + col));
      const float2 b = __ldg(reinterpret_cast<const float2*>(p.b2 + col));
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t r = h ? r1 : r0;
        // the residual read again (plain loads: y may be x) rather than kept in 32 registers over the products
        const float2 res = r < p.rows ? *reinterpret_cast<const float2*>(p.x + r * W + col) : make_float2(0.f, 0.f);
        const float is = h ? back.y : back.x;
        v[j][h] = make_float2(out[j][2 * h] * is * cs.x + b.x + res.x, out[j][2 * h + 1] * is * cs.y + b.y + res.y);
      }
    }
    if constexpr (kOut != Norm::Off) {
      float a[4 * DT], bb[4 * DT];
#pragma unroll
      for (int j = 0; j < 2 * DT; ++j)
        a[2 * j] = v[j][0].x, a[2 * j + 1] = v[j][0].y, bb[2 * j] = v[j][1].x, bb[2 * j + 1] = v[j][1].y;
      float2 mean, inv;
      row_stats(a, bb, W, p.out_eps, mean, inv);
#pragma unroll
      for (int j = 0; j < 2 * DT; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          v[j][h] =
              norm_pair<kOut>(v[j][h], h ? mean.y : mean.x, h ? inv.y : inv.x, p.out_gamma, p.out_beta, j * 8 + 2 * q);
    }
#pragma unroll
    for (int j = 0; j < 2 * DT; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t r = h ? r1 : r0;
        if (r < p.rows) *reinterpret_cast<float2*>(p.y + r * W + j * 8 + 2 * q) = v[j][h];
      }
  }
}

inline size_t mlp_smem(int dt, int ht) { return static_cast<size_t>(4) * ht * dt * 32 * 16; }

template <int DT, int HT, int CH, Norm kOut>
cudaError_t launch_mlp(const MlpParams& p, int sms, int smem_optin, cudaStream_t s) {
  if (!p.gamma || (kOut != Norm::Off && !p.out_gamma)) return cudaErrorInvalidValue;
  return launch_persistent(split_mlp_kernel<DT, HT, CH, kOut>, p, p.rows, mlp_smem(DT, HT), sms, smem_optin, s);
}

}  // namespace ie::lin::split
