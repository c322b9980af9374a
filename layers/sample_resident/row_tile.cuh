// The row-tile kernel of ie.SampleResident: a pre-LN transformer autoencoder (row_tile_model.h) with whole samples
// in registers. Depends on CUDA alone, so tests/kernels/sample_resident_lab.cu builds it with nvcc.
//
// Why a second kernel beside the interpreter (sample_resident.cuh): there every step goes through shared memory
// and a barrier, a product's B fragments are read again for every 16-row unit, and its epilogues' address
// arithmetic is most of the instructions (lab: 2.6 ms for the SSA at 65536 against a 0.13 ms Tensor Core floor).
// Here a warp owns mt 16-row MMA tiles into which whole samples are packed one after another (the SSA: 3 samples
// of 10 rows in 32; rows past the last sample are padding: zero input, a sample of their own, never stored):
//  - a product's float accumulator (rows g, g + 8; columns 2q, 2q + 1 of each 8-column tile) re-packed in
//    registers is the next product's A operand, so activations never leave registers between products;
//  - LayerNorm reduces a row across the 4 lanes of a quad (2 shuffles per statistic);
//  - RoPE rotates the pair (2q, 2q + 1) that a lane holds;
//  - attention per head: the scores from q's and k's packed accumulators as A and B over all the warp's rows with
//    a mask of each row's sample, the softmax across the quad, P as A, v's 8x8 blocks transposed by movmatrix as B;
//  - each B fragment (16-byte load from a weight slot, laid out in fragment order on the host: no address
//    arithmetic, no bank conflicts) serves the warp's mt tiles;
//  - the residual stream waits in shared memory in the lanes' own order (float4 per lane, conflict-free) while
//    q, k, v and the MLP's hidden chunks occupy the registers.
// The flattening encoder and the decoder (a product over samples, not rows) are CTA-wide: the tile's samples as
// rows of a shared buffer, K split over the warps and added in a fixed order (deterministic).
// Weights stream into two slots, one stage ahead (a stage: the embedding; a block's attention; its MLP; the
// encoder; the decoder; the output Linear), a barrier per stage; thread 0 moves a whole stage with one bulk copy
// (cp.async.bulk on an mbarrier per slot: at batch 1 the one warp with a sample used to issue its share of 16-byte
// cp.async copies before every stage, a quarter of the kernel's executed instructions).
// Code size: at two tiles a warp the unrolled code outgrew the instruction cache (fetch stalls were a fifth of the
// stall samples), so what repeats runs through one copy: the attention of either query tile, every LayerNorm of the
// chain (the stages differ only in where the rows come from and go), and the GELU of products that seldom carry one
// (out of line); the MLP's GELU and the LayerNorms' stay inline.
// At small batches row_heads.cuh shares a tile among four warps, one head each, on the same stage loop (run_tiles).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "layers/common/activation_device.cuh"
#include "layers/common/bulk_copy.cuh"
#include "layers/common/cp_async.cuh"
#include "layers/common/float_device.cuh"
#include "layers/common/mma_sync.cuh"
#include "layers/sample_resident/row_tile_model.h"

namespace ie::sr::rt {

struct Args {
  RtModel m;
  const unsigned char* weights = nullptr;  // the stages' fragment-ordered W^T blocks
  const float* floats = nullptr;           // biases, LayerNorm parameters, RoPE tables
  const void* x = nullptr;
  void* recon = nullptr;
  void* latent = nullptr;
  int64_t batch = 0;
  long long* trace = nullptr;  // the lab's stage timeline (IE_RT_TRACE builds only; see run_tiles)
};

__device__ __forceinline__ int lane_id() { return threadIdx.x & 31; }

// A pair of consecutive elements of a global tensor as floats (e even).
__device__ __forceinline__ float2 global_pair(const void* base, int64_t e, Elem t) {
  if (t == Elem::F32) return *reinterpret_cast<const float2*>(static_cast<const float*>(base) + e);
  const uint32_t u = *reinterpret_cast<const uint32_t*>(static_cast<const uint16_t*>(base) + e);
  return t == Elem::F16 ? dev::unpack_pair<__half>(u) : dev::unpack_pair<__nv_bfloat16>(u);
}
__device__ __forceinline__ void global_store_pair(void* base, int64_t e, Elem t, float a, float b) {
  if (t == Elem::F32) {
    *reinterpret_cast<float2*>(static_cast<float*>(base) + e) = make_float2(a, b);
    return;
  }
  *reinterpret_cast<uint32_t*>(static_cast<uint16_t*>(base) + e) =
      t == Elem::F16 ? dev::pack_pair<__half>(a, b) : dev::pack_pair<__nv_bfloat16>(a, b);
}

// acc[m][2 jp + {0, 1}] += a[m][kk] x (W^T pair j2_0 + jp, k-step kk0 + kk): one 16-byte B fragment per (pair,
// k-step), used by every sample of the warp. `w`: the Linear's blob in shared memory (kt: its k-steps).
template <class T, int MT, int KT, int NP>
__device__ __forceinline__ void mma_rows(float (&acc)[MT][2 * NP][4], const uint32_t (&a)[MT][KT][4],
                                         const unsigned char* w, int kt, int j2_0, int kk0) {
  const unsigned char* base = w + lane_id() * 16;
#pragma unroll
  for (int jp = 0; jp < NP; ++jp)
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
      const uint4 b = *reinterpret_cast<const uint4*>(base + ((j2_0 + jp) * kt + kk0 + kk) * 512);
#pragma unroll
      for (int m = 0; m < MT; ++m) {
        dev::mma_16816<T>(acc[m][2 * jp], a[m][kk], b.x, b.y);
        dev::mma_16816<T>(acc[m][2 * jp + 1], a[m][kk], b.z, b.w);
      }
    }
}

// The accumulator of 8-column tiles 2kk, 2kk + 1 as the A operand of k-step kk.
template <class T, int MT, int NT>
__device__ __forceinline__ void pack_rows(uint32_t (&a)[MT][NT / 2][4], const float (&c)[MT][NT][4]) {
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int kk = 0; kk < NT / 2; ++kk) {
      a[m][kk][0] = dev::pack_pair<T>(c[m][2 * kk][0], c[m][2 * kk][1]);
      a[m][kk][1] = dev::pack_pair<T>(c[m][2 * kk][2], c[m][2 * kk][3]);
      a[m][kk][2] = dev::pack_pair<T>(c[m][2 * kk + 1][0], c[m][2 * kk + 1][1]);
      a[m][kk][3] = dev::pack_pair<T>(c[m][2 * kk + 1][2], c[m][2 * kk + 1][3]);
    }
}

// The accumulator starts as bias[n0 + column] (the products add to it: no separate bias pass).
template <int MT, int NT>
__device__ __forceinline__ void bias_init(float (&acc)[MT][NT][4], const float* f, const RtLinear& l, int n0) {
  const int q = lane_id() & 3;
#pragma unroll
  for (int j = 0; j < NT; ++j) {
    const float2 b = *reinterpret_cast<const float2*>(f + l.bias + n0 + j * 8 + 2 * q);
#pragma unroll
    for (int m = 0; m < MT; ++m) acc[m][j][0] = b.x, acc[m][j][1] = b.y, acc[m][j][2] = b.x, acc[m][j][3] = b.y;
  }
}

// GELU here: in bf16 every activation is rounded to 8 significant bits (relative 2^-9) on its way to the next
// product, so the tanh form on the hardware's tanh.approx (error <= ~1e-3 against the exact GELU; 6 instructions)
// costs nothing visible there; fp16 rounds 8 times finer and keeps gelu_fast (<= 2.6e-5; 10 instructions, two of
// them MUFU). IE_RT_BF16_GELU_TANH=0 builds the lab's A/B without it.
#ifndef IE_RT_BF16_GELU_TANH
#define IE_RT_BF16_GELU_TANH 1
#endif
template <class T>
__device__ __forceinline__ float gelu(float x) {
  if constexpr (IE_RT_BF16_GELU_TANH && std::is_same<T, __nv_bfloat16>::value) return dev::gelu_tanh_approx(x);
  return dev::gelu_fast(x);
}

// IE_RT_GELU_OUT_OF_LINE: the seldom activations' GELU as one out-of-line copy (lab A/B, R17).
#ifndef IE_RT_GELU_OUT_OF_LINE
#define IE_RT_GELU_OUT_OF_LINE 1
#endif

// Code-size switches (lab A/B; the lab's R13-R16): IE_RT_ATTEND_ONCE, attend's code once for all query tiles; at
// two tiles a warp, IE_RT_NORM_SHARED, one copy of every LayerNorm of the chain.
#ifndef IE_RT_ATTEND_ONCE
#define IE_RT_ATTEND_ONCE 1
#endif
#ifndef IE_RT_NORM_SHARED
#define IE_RT_NORM_SHARED 1
#endif

// GELU over n floats of a local array, out of line: the activation of the products that seldom carry one (every
// Linear but the MLP's first, whose GELU and the LayerNorms' stay inline). One copy of its code instead of one
// unrolled at each product keeps the kernel within the instruction cache; a product with GELU there pays a round
// trip of its accumulator through local memory.
template <class T>
__device__ __noinline__ void gelu_out_of_line(float* v, int n) {
  for (int i = 0; i < n; ++i) v[i] = gelu<T>(v[i]);
}

// kInline: the GELU unrolled in place (the MLP's hidden layer, the LayerNorms); else out of line.
template <class T, bool kInline = false, int MT, int NT>
__device__ __forceinline__ void activate(float (&acc)[MT][NT][4], int act) {
  if (act != static_cast<int>(dev::Act::Gelu)) return;
  if constexpr (kInline || !IE_RT_GELU_OUT_OF_LINE) {
#pragma unroll
    for (int m = 0; m < MT; ++m)
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[m][j][i] = gelu<T>(acc[m][j][i]);
  } else {
    float tmp[MT * NT * 4];  // a copy: acc itself stays in registers
#pragma unroll
    for (int k = 0; k < MT * NT * 4; ++k) tmp[k] = acc[k / (NT * 4)][k / 4 % NT][k % 4];
    gelu_out_of_line<T>(tmp, MT * NT * 4);
#pragma unroll
    for (int k = 0; k < MT * NT * 4; ++k) acc[k / (NT * 4)][k / 4 % NT][k % 4] = tmp[k];
  }
}

// LayerNorm of each row (NT x 8 columns across a quad), two-pass statistics in float (sums in 4 interleaved
// partials, not one chain of dependent adds: fixed-latency waits were a fifth of the kernel's stall samples), then
// the activation.
template <class T, int MT, int NT>
__device__ __forceinline__ void norm_rows(float (&v)[MT][NT][4], const float* f, const RtNorm& p) {
  const int q = lane_id() & 3;
  constexpr float inv = 1.f / (NT * 8);
  constexpr int P = NT < 4 ? NT : 4;
#pragma unroll
  for (int m = 0; m < MT; ++m) {
    float s0[P] = {}, s1[P] = {};
#pragma unroll
    for (int j = 0; j < NT; ++j) s0[j % P] += v[m][j][0] + v[m][j][1], s1[j % P] += v[m][j][2] + v[m][j][3];
#pragma unroll
    for (int i = 1; i < P; ++i) s0[0] += s0[i], s1[0] += s1[i];
    float a0 = s0[0], a1 = s1[0];
    a0 += __shfl_xor_sync(0xffffffffu, a0, 1), a1 += __shfl_xor_sync(0xffffffffu, a1, 1);
    a0 += __shfl_xor_sync(0xffffffffu, a0, 2), a1 += __shfl_xor_sync(0xffffffffu, a1, 2);
    const float m0 = a0 * inv, m1 = a1 * inv;
    float d0[P] = {}, d1[P] = {};
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      v[m][j][0] -= m0, v[m][j][1] -= m0, v[m][j][2] -= m1, v[m][j][3] -= m1;
      d0[j % P] += v[m][j][0] * v[m][j][0] + v[m][j][1] * v[m][j][1];
      d1[j % P] += v[m][j][2] * v[m][j][2] + v[m][j][3] * v[m][j][3];
    }
#pragma unroll
    for (int i = 1; i < P; ++i) d0[0] += d0[i], d1[0] += d1[i];
    float e0 = d0[0], e1 = d1[0];
    e0 += __shfl_xor_sync(0xffffffffu, e0, 1), e1 += __shfl_xor_sync(0xffffffffu, e1, 1);
    e0 += __shfl_xor_sync(0xffffffffu, e0, 2), e1 += __shfl_xor_sync(0xffffffffu, e1, 2);
    const float r0 = rsqrtf(e0 * inv + p.eps), r1 = rsqrtf(e1 * inv + p.eps);
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      const float2 g = *reinterpret_cast<const float2*>(f + p.gamma + j * 8 + 2 * q);
      const float2 b = *reinterpret_cast<const float2*>(f + p.beta + j * 8 + 2 * q);
      v[m][j][0] = v[m][j][0] * r0 * g.x + b.x, v[m][j][1] = v[m][j][1] * r0 * g.y + b.y;
      v[m][j][2] = v[m][j][2] * r1 * g.x + b.x, v[m][j][3] = v[m][j][3] * r1 * g.y + b.y;
    }
  }
  activate<T, true>(v, p.act);
}

// The warp's residual streams in shared memory, each lane's accumulator values together (float4: no conflicts).
template <int MT, int NT>
__device__ __forceinline__ void save_rows(float* hw, const float (&v)[MT][NT][4]) {
  auto* p = reinterpret_cast<float4*>(hw) + lane_id();
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int j = 0; j < NT; ++j) p[(m * NT + j) * 32] = make_float4(v[m][j][0], v[m][j][1], v[m][j][2], v[m][j][3]);
}
// kAdd: the streams are added to v (the residual), else they replace it.
template <bool kAdd = false, int MT, int NT>
__device__ __forceinline__ void load_rows(const float* hw, float (&v)[MT][NT][4]) {
  const auto* p = reinterpret_cast<const float4*>(hw) + lane_id();
#pragma unroll
  for (int m = 0; m < MT; ++m)
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      const float4 t = p[(m * NT + j) * 32];
      if constexpr (kAdd) {
        v[m][j][0] += t.x, v[m][j][1] += t.y, v[m][j][2] += t.z, v[m][j][3] += t.w;
      } else {
        v[m][j][0] = t.x, v[m][j][1] = t.y, v[m][j][2] = t.z, v[m][j][3] = t.w;
      }
    }
}

// RoPE on the accumulator of q or k: the lane's pair (2q, 2q + 1) of each 8-column tile, for its rows' positions
// pos[m][h] (rows g and g + 8 of tile m).
template <int MT, int NT, int HD>
__device__ __forceinline__ void rope_rows(float (&acc)[MT][NT][4], const float* f, const RtBlock& b,
                                          const int (&pos)[MT][2]) {
  if (b.rope_cos < 0) return;
  constexpr int kPer = HD / 8;  // distinct angles per row in a lane
  const int q = lane_id() & 3;
#pragma unroll
  for (int m = 0; m < MT; ++m) {
    float cs[2][kPer], sn[2][kPer];
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int t = 0; t < kPer; ++t) {
        cs[h][t] = f[b.rope_cos + pos[m][h] * (HD / 2) + t * 4 + q];
        sn[h][t] = f[b.rope_sin + pos[m][h] * (HD / 2) + t * 4 + q];
      }
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float c = cs[h][j % kPer], s = sn[h][j % kPer];
        const float x0 = acc[m][j][2 * h], x1 = acc[m][j][2 * h + 1];
        acc[m][j][2 * h] = x0 * c - x1 * s;
        acc[m][j][2 * h + 1] = x0 * s + x1 * c;
      }
  }
}

// Attention of query tile t's rows: y (packed, as the projection's A operand) from q (packed accumulator) and the
// keys and values of all the warp's MT tiles (k packed, v as transposed 8x8 blocks: B fragments of P v). A key
// counts for a query row where bit (u * 4 + n * 2 + e) of allow[h] is set (key row 16 u + 8 n + 2q + e of the
// same sample); the softmax runs across the quad.
// IE_RT_SOFTMAX_FFMA: the score scale applied inside the exponent's FFMA, not by a multiply per score (lab A/B).
#ifndef IE_RT_SOFTMAX_FFMA
#define IE_RT_SOFTMAX_FFMA 1
#endif
template <class T, int D, int HD, int MT>
__device__ __forceinline__ void attend(uint32_t (&y)[D / 16][4], const uint32_t (&qp)[D / 16][4],
                                       const uint32_t (&kp)[MT][D / 16][4], const uint32_t (&vt)[MT][D / 8][2],
                                       const uint32_t (&allow)[2], float scale_log2) {
  constexpr int kH = D / HD, kKH = HD / 16, kTH = HD / 8;
#pragma unroll
  for (int h = 0; h < kH; ++h) {
    float s[MT][2][4] = {};  // key tile u: keys 16 u + 0-7 and 16 u + 8-15
#pragma unroll
    for (int u = 0; u < MT; ++u)
#pragma unroll
      for (int kk = 0; kk < kKH; ++kk) {
        const int k = h * kKH + kk;
        dev::mma_16816<T>(s[u][0], qp[k], kp[u][k][0], kp[u][k][2]);
        dev::mma_16816<T>(s[u][1], qp[k], kp[u][k][1], kp[u][k][3]);
      }
    float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int u = 0; u < MT; ++u)
#pragma unroll
      for (int n = 0; n < 2; ++n)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int r = i >> 1, bit = u * 4 + n * 2 + (i & 1);
#if IE_RT_SOFTMAX_FFMA
          s[u][n][i] = (allow[r] >> bit) & 1u ? s[u][n][i] : -INFINITY;
#else
          s[u][n][i] = (allow[r] >> bit) & 1u ? s[u][n][i] * scale_log2 : -INFINITY;
#endif
          mx[r] = fmaxf(mx[r], s[u][n][i]);
        }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
    }
    float sum[2] = {0.f, 0.f};
#if IE_RT_SOFTMAX_FFMA
    // exp2(scale_log2 (s - max)) as one FFMA into ex2 (the row's maximum is that of the unscaled scores: the
    // builder accepts positive scales only); every query row sees its own key, so the maximum is finite.
    const float off[2] = {-mx[0] * scale_log2, -mx[1] * scale_log2};
#endif
#pragma unroll
    for (int u = 0; u < MT; ++u)
#pragma unroll
      for (int n = 0; n < 2; ++n)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
#if IE_RT_SOFTMAX_FFMA
          s[u][n][i] = dev::ex2_approx(fmaf(s[u][n][i], scale_log2, off[i >> 1]));
#else
          s[u][n][i] = dev::ex2_approx(s[u][n][i] - mx[i >> 1]);
#endif
          sum[i >> 1] += s[u][n][i];
        }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], 1);
      sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], 2);
    }
    float o[kTH][4] = {};
#pragma unroll
    for (int u = 0; u < MT; ++u) {
      const uint32_t pa[4] = {dev::pack_pair<T>(s[u][0][0], s[u][0][1]), dev::pack_pair<T>(s[u][0][2], s[u][0][3]),
                              dev::pack_pair<T>(s[u][1][0], s[u][1][1]), dev::pack_pair<T>(s[u][1][2], s[u][1][3])};
#pragma unroll
      for (int t = 0; t < kTH; ++t) dev::mma_16816<T>(o[t], pa, vt[u][h * kTH + t][0], vt[u][h * kTH + t][1]);
    }
    const float inv0 = dev::rcp_approx(sum[0]), inv1 = dev::rcp_approx(sum[1]);  // sums >= 1
#pragma unroll
    for (int t = 0; t < kTH; ++t) o[t][0] *= inv0, o[t][1] *= inv0, o[t][2] *= inv1, o[t][3] *= inv1;
#pragma unroll
    for (int kk = 0; kk < kKH; ++kk) {
      uint32_t* a = y[h * kKH + kk];
      a[0] = dev::pack_pair<T>(o[2 * kk][0], o[2 * kk][1]);
      a[1] = dev::pack_pair<T>(o[2 * kk][2], o[2 * kk][3]);
      a[2] = dev::pack_pair<T>(o[2 * kk + 1][0], o[2 * kk + 1][1]);
      a[3] = dev::pack_pair<T>(o[2 * kk + 1][2], o[2 * kk + 1][3]);
    }
  }
}

// IE_RT_X_EARLY: the tile's input loaded at the tile's start (lab A/B).
#ifndef IE_RT_X_EARLY
#define IE_RT_X_EARLY 1
#endif

// Everything one warp does for its samples in one stage, and the CTA-wide encoder and decoder. The warp's rows
// 0 .. 16 MT - 1 hold its spw samples one after another; a lane holds rows 16 m + g + 8 h (tile m, half h), of
// sample id[m][h] (spw or more: padding) at position pos[m][h]. kXEarly: the tile's input loaded at its start
// (load_x; where the registers allow).
template <class T, int D, int HD, int MT, bool kXEarly = false>
struct Tile {
  static constexpr int NT = D / 8, KT = D / 16;
  const Args& a;
  const RtModel& m;
  unsigned char* smem;
  const float* f;   // the float blob in shared memory
  float* hw;        // this warp's residual streams
  int64_t sample0;  // the tile's first sample
  int local0;       // the warp's first sample in the tile
  int id[MT][2], pos[MT][2];
  uint32_t allow[MT][2];  // per query row: the keys of its sample (attend's bit order)

  __device__ void init_rows() {
    const int lane = lane_id(), g = lane >> 2, q = lane & 3;
    // r / seq for rows r < 32 and seq <= 16 by a float product (exact: r + 0.5 stays a half row from a multiple),
    // not an integer division's ~20 instructions: at batch 1 this start is on the critical path.
    const float inv_seq = 1.f / m.seq;
    auto sample_of = [&](int r) { return static_cast<int>((r + 0.5f) * inv_seq); };
#pragma unroll
    for (int t = 0; t < MT; ++t)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = 16 * t + g + 8 * h;
        id[t][h] = sample_of(r), pos[t][h] = r - id[t][h] * m.seq;
      }
    int key[MT][2][2];  // the sample of each key row the lane holds (attend's bit order)
#pragma unroll
    for (int u = 0; u < MT; ++u)
#pragma unroll
      for (int n = 0; n < 2; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) key[u][n][e] = sample_of(16 * u + 8 * n + 2 * q + e);
#pragma unroll
    for (int t = 0; t < MT; ++t)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        uint32_t bits = 0;
#pragma unroll
        for (int u = 0; u < MT; ++u)
#pragma unroll
          for (int n = 0; n < 2; ++n)
#pragma unroll
            for (int e = 0; e < 2; ++e)
              if (key[u][n][e] == id[t][h]) bits |= 1u << (u * 4 + n * 2 + e);
        allow[t][h] = bits;
      }
  }
  __device__ bool real(int t, int h) const { return id[t][h] < m.spw; }
  __device__ int64_t sample(int t, int h) const { return sample0 + local0 + id[t][h]; }

  // x rows -> embedding Linear -> LayerNorm -> the residual stream.
  __device__ void embed(const unsigned char* w) {
    float acc[MT][NT][4];
    embed_rows(acc, w);
    norm_rows<T>(acc, f, m.embed_norm);
    save_rows(hw, acc);
  }
  // The lane's pairs of x in the embedding's k-step kk (A fragment order), zeros on padding rows and past the batch.
  __device__ void x_pairs(float2 (&v)[MT][4], int kk) const {
    const int q = lane_id() & 3, P = m.slice;
#pragma unroll
    for (int t = 0; t < MT; ++t)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int h = i & 1, c = kk * 16 + 8 * (i >> 1);
        v[t][i] = make_float2(0.f, 0.f);
        if (real(t, h) && sample(t, h) < a.batch)
          v[t][i] = global_pair(a.x, (sample(t, h) * m.seq + pos[t][h]) * P + 2 * q + c, m.x_elem);
      }
  }
  __device__ static void pack_x(uint32_t (&ax)[MT][1][4], const float2 (&v)[MT][4]) {
#pragma unroll
    for (int t = 0; t < MT; ++t)
#pragma unroll
      for (int i = 0; i < 4; ++i) ax[t][0][i] = dev::pack_pair<T>(v[t][i].x, v[t][i].y);
  }
  // Slices of up to 32 (two k-steps): the tile's input is loaded when the tile starts, before its first stage waits
  // for the weights (at batch 1 the loads' latency was most of the embedding stage); kept as loaded (packing them
  // would wait for them there). Those registers stay live across the whole stage loop: only where the kernel has
  // registers to spare (not at two tiles a warp, not in 512 threads; both spill then).
  // IE_RT_X_EARLY=0 builds the lab's A/B without it.
  static constexpr bool kEarly = IE_RT_X_EARLY && kXEarly;
  float2 xa[2][MT][4];
  __device__ void load_x() {
    if (!kEarly || m.slice > 32) return;
    x_pairs(xa[0], 0);
    if (m.slice > 16) x_pairs(xa[1], 1);
  }
  // x rows -> the embedding Linear with its activation.
  __device__ void embed_rows(float (&acc)[MT][NT][4], const unsigned char* w) const {
    const int kt = m.slice / 16;
    bias_init(acc, f, m.embed, 0);
    for (int kk = 0; kk < kt; ++kk) {
      uint32_t ax[MT][1][4];
      float2 v[MT][4];
      if (kEarly && kt <= 2) {
#pragma unroll
        for (int t = 0; t < MT; ++t)
#pragma unroll
          for (int i = 0; i < 4; ++i) v[t][i] = kk == 0 ? xa[0][t][i] : xa[1][t][i];
      } else {
        x_pairs(v, kk);
      }
      pack_x(ax, v);
      mma_rows<T, MT, 1, NT / 2>(acc, ax, w + m.embed.w, kt, 0, kk);
    }
    activate<T>(acc, m.embed.act);
  }

  // The residual streams through a LayerNorm, packed as a product's A operand.
  __device__ void normed(uint32_t (&ap)[MT][KT][4], const RtNorm& n) const {
    float v[MT][NT][4];
    load_rows(hw, v);
    norm_rows<T>(v, f, n);
    pack_rows<T>(ap, v);
  }

  // Block `part` of q | k | v (0, 1, 2): the product with its bias and activation.
  __device__ void qkv(float (&acc)[MT][NT][4], const uint32_t (&ap)[MT][KT][4], const RtBlock& b,
                      const unsigned char* w, int part) const {
    bias_init(acc, f, b.qkv, part * D);
    mma_rows<T, MT, KT, NT / 2>(acc, ap, w + b.qkv.w, KT, part * NT / 2, 0);
    activate<T>(acc, b.qkv.act);
  }

  // ap (the block's input through ln1, packed) -> q | k | v with RoPE, attention per head within each sample, the
  // projection + the residual.
  __device__ void attention(const RtBlock& b, const unsigned char* w, const uint32_t (&ap)[MT][KT][4]) {
    uint32_t qp[MT][KT][4], kp[MT][KT][4], vt[MT][NT][2];
    {
      float acc[MT][NT][4];
      qkv(acc, ap, b, w, 0);
      rope_rows<MT, NT, HD>(acc, f, b, pos);
      pack_rows<T>(qp, acc);
      qkv(acc, ap, b, w, 1);
      rope_rows<MT, NT, HD>(acc, f, b, pos);
      pack_rows<T>(kp, acc);
      qkv(acc, ap, b, w, 2);
#pragma unroll
      for (int t = 0; t < MT; ++t)
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          vt[t][j][0] = dev::movmatrix_trans(dev::pack_pair<T>(acc[t][j][0], acc[t][j][1]));
          vt[t][j][1] = dev::movmatrix_trans(dev::pack_pair<T>(acc[t][j][2], acc[t][j][3]));
        }
    }
    uint32_t yp[MT][KT][4];
    const float scale_log2 = b.scale * 1.4426950408889634f;
#if IE_RT_ATTEND_ONCE
    // One copy of attend's code for every query tile (a run-time loop; selects pick the tile's registers): the
    // unrolled copies made the kernel's code larger than the instruction cache.
#pragma unroll 1
    for (int t = 0; t < MT; ++t) {
      uint32_t q1[KT][4], y1[KT][4];
      uint32_t al[2] = {t == 0 ? allow[0][0] : allow[MT - 1][0], t == 0 ? allow[0][1] : allow[MT - 1][1]};
#pragma unroll
      for (int kk = 0; kk < KT; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) q1[kk][i] = t == 0 ? qp[0][kk][i] : qp[MT - 1][kk][i];
      attend<T, D, HD, MT>(y1, q1, kp, vt, al, scale_log2);
#pragma unroll
      for (int kk = 0; kk < KT; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          if (t == 0)
            yp[0][kk][i] = y1[kk][i];
          else
            yp[MT - 1][kk][i] = y1[kk][i];
        }
    }
#else
#pragma unroll
    for (int t = 0; t < MT; ++t) attend<T, D, HD, MT>(yp[t], qp[t], kp, vt, allow[t], scale_log2);
#endif
    float acc[MT][NT][4];
    bias_init(acc, f, b.proj, 0);
    mma_rows<T, MT, KT, NT / 2>(acc, yp, w + b.proj.w, KT, 0, 0);
    activate<T>(acc, b.proj.act);
    load_rows<true>(hw, acc);
    save_rows(hw, acc);
  }

  // ap (the block's stream through ln2, packed) -> fc1 in chunks of 32 hidden columns (bias, activation,
  // re-packed) each consumed by fc2 at once, + the residual.
  __device__ void mlp(const RtBlock& b, const unsigned char* w, const uint32_t (&ap)[MT][KT][4]) {
    const int kf = m.hidden / 16;
    float out[MT][NT][4];
    bias_init(out, f, b.fc2, 0);
    for (int c = 0; c < m.hidden / 32; ++c) {
      float u[MT][4][4];
      bias_init(u, f, b.fc1, 32 * c);
      mma_rows<T, MT, KT, 2>(u, ap, w + b.fc1.w, KT, 2 * c, 0);
      activate<T, true>(u, b.fc1.act);
      uint32_t up[MT][2][4];
      pack_rows<T>(up, u);
      mma_rows<T, MT, 2, NT / 2>(out, up, w + b.fc2.w, kf, 0, 2 * c);
    }
    activate<T>(out, b.fc2.act);
    load_rows<true>(hw, out);
    save_rows(hw, out);
  }

  // The final LayerNorm, the warp's samples as flat rows of the shared buffer (padding rows dropped).
  __device__ void flatten() {
    float v[MT][NT][4];
    load_rows(hw, v);
    norm_rows<T>(v, f, m.final_norm);
    flat_store(v);
  }
  __device__ void flat_store(const float (&v)[MT][NT][4]) const {
    const int q = lane_id() & 3;
#pragma unroll
    for (int t = 0; t < MT; ++t)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (!real(t, h)) continue;
        unsigned char* row = smem + m.flat_smem + (local0 + id[t][h]) * m.flat_stride + pos[t][h] * D * 2;
#pragma unroll
        for (int j = 0; j < NT; ++j)
          *reinterpret_cast<uint32_t*>(row + (j * 8 + 2 * q) * 2) =
              dev::pack_pair<T>(v[t][j][2 * h], v[t][j][2 * h + 1]);
      }
  }

  // The decoder's rows of the warp's samples -> LayerNorm -> the output Linear -> recon.
  // first, step: the output Linear's 16-column groups this warp makes (out_product).
  __device__ void output(const unsigned char* w, int first = 0, int step = 1) const {
    uint32_t ap[MT][KT][4];
    {
      float v[MT][NT][4];
      decoded_rows(v);
      norm_rows<T>(v, f, m.dec_norm);
      pack_rows<T>(ap, v);
    }
    out_product(ap, w, first, step);
  }
  // The decoder's rows of the warp's samples (from the flat buffer).
  __device__ void decoded_rows(float (&v)[MT][NT][4]) const {
    const int q = lane_id() & 3;
#pragma unroll
    for (int t = 0; t < MT; ++t)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        // padding rows read the warp's first row: finite, never stored
        const unsigned char* row = smem + m.flat_smem + local0 * m.flat_stride;
        if (real(t, h)) row += id[t][h] * m.flat_stride + pos[t][h] * D * 2;
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          const float2 p = dev::unpack_pair<T>(*reinterpret_cast<const uint32_t*>(row + (j * 8 + 2 * q) * 2));
          v[t][j][2 * h] = p.x, v[t][j][2 * h + 1] = p.y;
        }
      }
  }
  // ap (the decoder's rows through dec_norm, packed) -> the output Linear -> recon: its 16-column groups first,
  // first + step, ... (warps that share the rows split them).
  __device__ void out_product(const uint32_t (&ap)[MT][KT][4], const unsigned char* w, int first = 0,
                              int step = 1) const {
    const int q = lane_id() & 3, P = m.slice;
    for (int c = first; c < P / 16; c += step) {
      float acc[MT][2][4];
      bias_init(acc, f, m.out, 16 * c);
      mma_rows<T, MT, KT, 1>(acc, ap, w + m.out.w, KT, c, 0);
      activate<T>(acc, m.out.act);
#pragma unroll
      for (int t = 0; t < MT; ++t)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          if (!real(t, h) || sample(t, h) >= a.batch) continue;
          const int64_t e = (sample(t, h) * m.seq + pos[t][h]) * P + c * 16 + 2 * q;
#pragma unroll
          for (int u = 0; u < 2; ++u)
            global_store_pair(a.recon, e + u * 8, m.recon_elem, acc[t][u][2 * h], acc[t][u][2 * h + 1]);
        }
    }
  }
};

// The encoder: z = flat rows x W_enc^T + bias, K split over the warps (partial sums in the scratch, added in slice
// order), to `latent` and to the decoder's A buffer. Two barriers inside: every thread calls it.
template <class T>
__device__ void encode(const Args& a, const RtModel& m, unsigned char* smem, const float* f, const unsigned char* w,
                       int64_t sample0) {
  const int lane = lane_id(), warp = threadIdx.x >> 5, nw = blockDim.x >> 5, g = lane >> 2, q = lane & 3;
  const int L = m.latent, kt = m.seq * m.width / 16, lp = L / 16;
  const int split = max(1, nw / m.mtiles), rows = m.mtiles * 16;
  float* scratch = reinterpret_cast<float*>(smem + m.scratch_smem);
  __syncthreads();  // the flat rows are written
  for (int u = warp; u < m.mtiles * split; u += nw) {
    const int mt = u / split, part = u - mt * split;
    const int kb = part * kt / split, ke = (part + 1) * kt / split;
    float acc[8][4] = {};
    const uint32_t arow = static_cast<uint32_t>(
        __cvta_generic_to_shared(smem + m.flat_smem + (mt * 16 + (lane & 15)) * m.flat_stride + (lane >> 4) * 16));
    for (int kk = kb; kk < ke; ++kk) {
      uint32_t af[4];
      dev::ldmatrix_x4(af, arow + kk * 32);
#pragma unroll
      for (int jp = 0; jp < 4; ++jp) {
        if (jp >= lp) break;
        const uint4 b = *reinterpret_cast<const uint4*>(w + m.enc.w + ((jp * kt + kk) * 32 + lane) * 16);
        dev::mma_16816<T>(acc[2 * jp], af, b.x, b.y);
        dev::mma_16816<T>(acc[2 * jp + 1], af, b.z, b.w);
      }
    }
    float* sp = scratch + (part * rows + mt * 16) * L;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (j >= 2 * lp) break;
      *reinterpret_cast<float2*>(sp + g * L + j * 8 + 2 * q) = make_float2(acc[j][0], acc[j][1]);
      *reinterpret_cast<float2*>(sp + (g + 8) * L + j * 8 + 2 * q) = make_float2(acc[j][2], acc[j][3]);
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < m.tile * L / 2; i += blockDim.x) {
    const int s = (2 * i) / L, c = (2 * i) % L;
    float2 z = *reinterpret_cast<const float2*>(f + m.enc.bias + c);
    for (int p = 0; p < split; ++p) {  // in slice order: deterministic
      const float2 t = *reinterpret_cast<const float2*>(scratch + (p * rows + s) * L + c);
      z.x += t.x, z.y += t.y;
    }
    if (m.enc.act == static_cast<int>(dev::Act::Gelu)) z.x = gelu<T>(z.x), z.y = gelu<T>(z.y);
    if (sample0 + s < a.batch) global_store_pair(a.latent, (sample0 + s) * L + c, m.latent_elem, z.x, z.y);
    *reinterpret_cast<uint32_t*>(smem + m.z_smem + s * m.z_stride + c * 2) = dev::pack_pair<T>(z.x, z.y);
  }
}

// The decoder: the latents x W_dec^T + bias as flat rows of the shared buffer (the output stage reads them as
// rows after its barrier); 32-column groups over the warps.
template <class T>
__device__ void decode(const RtModel& m, unsigned char* smem, const float* f, const unsigned char* w) {
  const int lane = lane_id(), warp = threadIdx.x >> 5, nw = blockDim.x >> 5, g = lane >> 2, q = lane & 3;
  const int kt = m.latent / 16, n = m.seq * m.width;
  for (int mt = 0; mt < m.mtiles; ++mt) {
    uint32_t af[4][4];
    const uint32_t arow = static_cast<uint32_t>(
        __cvta_generic_to_shared(smem + m.z_smem + (mt * 16 + (lane & 15)) * m.z_stride + (lane >> 4) * 16));
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      if (kk < kt) dev::ldmatrix_x4(af[kk], arow + kk * 32);
    unsigned char* out = smem + m.flat_smem + (mt * 16) * m.flat_stride;
    for (int cg = warp; cg < n / 32; cg += nw) {
      float acc[4][4] = {};
#pragma unroll
      for (int jp = 0; jp < 2; ++jp)
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          if (kk >= kt) break;
          const uint4 b = *reinterpret_cast<const uint4*>(w + m.dec.w + (((2 * cg + jp) * kt + kk) * 32 + lane) * 16);
          dev::mma_16816<T>(acc[2 * jp], af[kk], b.x, b.y);
          dev::mma_16816<T>(acc[2 * jp + 1], af[kk], b.z, b.w);
        }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int c = cg * 32 + j * 8 + 2 * q;
        const float2 bias = *reinterpret_cast<const float2*>(f + m.dec.bias + c);
        float v[4] = {acc[j][0] + bias.x, acc[j][1] + bias.y, acc[j][2] + bias.x, acc[j][3] + bias.y};
        if (m.dec.act == static_cast<int>(dev::Act::Gelu))
#pragma unroll
          for (int i = 0; i < 4; ++i) v[i] = gelu<T>(v[i]);
        *reinterpret_cast<uint32_t*>(out + g * m.flat_stride + c * 2) = dev::pack_pair<T>(v[0], v[1]);
        *reinterpret_cast<uint32_t*>(out + (g + 8) * m.flat_stride + c * 2) = dev::pack_pair<T>(v[2], v[3]);
      }
    }
  }
}

// Thread 0 starts the copy of weight stage `stage` into the stream's next slot.
__device__ __forceinline__ void prefetch_stage(const Args& a, const dev::Slots& q, dev::WeightStream& ws, int stage) {
  dev::slots_issue(q, a.weights + a.m.stage_off[stage], static_cast<uint32_t>(a.m.stage_bytes[stage]), ws);
}

// What the row-tile kernels share: the start (the slots' barriers, the floats and the first stage's weights in
// flight together, one wait before the first stage: at batch 1 the start is on the critical path; the flat rows and
// latents past the tile's samples zeroed, as they are never written but are MMA inputs) and the persistent loop
// over tiles and stages: a barrier per stage, the next stage's weights prefetched into the other slot, then
// rows(kind, block, weights) for the warp's rows when they hold samples of the batch (kind: 0 the embedding, 1 an
// attention, 2 an MLP, 3 the final LayerNorm, 5 the output Linear; stage 4, the decoder, has no rows' work) and the
// CTA-wide encoder and decoder. set_tile(first sample) is called before each tile.
// IE_RT_TRACE (lab builds): lane 0 of every warp of CTA 0 records clock64() at the start and, for its first tile
// (IE_RT_TRACE_TILE = i: its tile i, a steady-state one), at four edges of each stage (before the weights' wait,
// after the stage barrier, after the rows' work, after the encoder or decoder) into a.trace[(1 + 4 stage + edge) x 32
// + warp].
#ifndef IE_RT_TRACE
#define IE_RT_TRACE 0
#endif
#ifndef IE_RT_TRACE_TILE
#define IE_RT_TRACE_TILE 0
#endif
constexpr int kRtTraceEdges = 1 + 4 * kRtMaxStages;

template <class T, class SetTile, class Rows>
__device__ __forceinline__ void run_tiles(const Args& a, unsigned char* smem, float* fl, int local0, SetTile&& set_tile,
                                          Rows&& rows) {
  const RtModel& m = a.m;
#if IE_RT_TRACE
  const bool traced = a.trace && blockIdx.x == 0 && lane_id() == 0;
  auto mark = [&](int edge) {
    if (traced && edge < kRtTraceEdges) a.trace[edge * 32 + (threadIdx.x >> 5)] = clock64();
  };
#else
  auto mark = [](int) {};
#endif
  mark(0);
  const int64_t tiles = (a.batch + m.tile - 1) / m.tile;
  const dev::Slots q{smem + m.slots, m.slot_bytes, reinterpret_cast<uint64_t*>(smem + m.bars_smem)};
  dev::WeightStream ws;
  dev::init_slots(q);
  prefetch_stage(a, q, ws, 0);
  const int float_chunks = m.floats_count / 4;
  for (int i = threadIdx.x; i < float_chunks; i += blockDim.x) dev::cp_async16(fl + 4 * i, a.floats + 4 * i, true);
  for (int i = 4 * float_chunks + threadIdx.x; i < m.floats_count; i += blockDim.x) fl[i] = __ldg(a.floats + i);
  dev::cp_async_commit();
  {  // both regions are 128-byte aligned with 16-byte row strides
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
    auto* p = reinterpret_cast<uint4*>(smem + m.flat_smem);
    for (int i = threadIdx.x; i < m.mtiles * 16 * m.flat_stride / 16; i += blockDim.x) p[i] = zero;
    p = reinterpret_cast<uint4*>(smem + m.z_smem);
    for (int i = threadIdx.x; i < m.mtiles * 16 * m.z_stride / 16; i += blockDim.x) p[i] = zero;
  }
  __syncthreads();  // the slots' barriers are initialized before anyone waits on them
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t sample0 = tile * m.tile;
    set_tile(sample0);
    const bool more = tile + gridDim.x < tiles;
    // The traced tile's stages (IE_RT_TRACE_TILE: the CTA's first tile by default).
    const int e0 = tile == blockIdx.x + IE_RT_TRACE_TILE * static_cast<int64_t>(gridDim.x) ? 1 : kRtTraceEdges;
    for (int st = 0; st < m.stages; ++st) {
      mark(e0 + 4 * st);
      dev::cp_async_wait<0>();  // the floats (the first stage)
      const int slot = dev::slots_wait(q, ws);
      __syncthreads();  // the floats are visible; every warp is done with the other slot
      mark(e0 + 4 * st + 1);
      const int next = st + 1 < m.stages ? st + 1 : (more ? 0 : -1);
      if (next >= 0) prefetch_stage(a, q, ws, next);
      const unsigned char* w = smem + m.slots + slot * m.slot_bytes;
      // A warp whose samples all lie past the batch (the last tile of a small batch) only keeps the barriers: the
      // warps that have work get their schedulers to themselves (its rows in the flat buffer stay finite).
      const bool busy = sample0 + local0 < a.batch;
      auto runs = [&](int stage) { return (m.skip >> stage & 1) == 0; };
      // The stage's kind (RtModel::skip's bits).
      const int kind = st == 0 ? 0 : st <= 2 * m.blocks ? 2 - (st & 1) : st - 2 * m.blocks + 2;
      const RtBlock& b = m.block[kind == 1 || kind == 2 ? (st - 1) >> 1 : 0];
      if (busy && runs(kind) && kind != 4) rows(kind, b, w);
      mark(e0 + 4 * st + 2);
      if (kind == 3 && runs(3)) encode<T>(a, m, smem, fl, w, sample0);
      if (kind == 4 && runs(4)) decode<T>(m, smem, fl, w);
      mark(e0 + 4 * st + 3);
    }
  }
}

template <class T, int D, int HD, int MT, int kThreads>
__global__ void __launch_bounds__(kThreads, 1) row_tile_kernel(const __grid_constant__ Args a) {
  extern __shared__ __align__(128) unsigned char smem[];
  const RtModel& m = a.m;
  if (static_cast<int64_t>(blockIdx.x) * m.tile >= a.batch) return;
  float* fl = reinterpret_cast<float*>(smem + m.floats_smem);
  const int warp = threadIdx.x >> 5;
  float* hw = reinterpret_cast<float*>(smem + m.h_smem + warp * m.h_warp_bytes);
  using Rows = Tile<T, D, HD, MT, MT == 1 && kThreads <= 384>;
  Rows t{a, m, smem, fl, hw, 0, warp * m.spw};
  t.init_rows();
  run_tiles<T>(
      a, smem, fl, t.local0,
      [&](int64_t sample0) {
        t.sample0 = sample0;
        t.load_x();
      },
      [&](int kind, const RtBlock& b, const unsigned char* w) {
        if constexpr (MT >= 2 && IE_RT_NORM_SHARED) {
          // Every LayerNorm of the chain through one copy of its code (the stages differ only in where the rows
          // come from and where they go): at two tiles a warp the code is larger than the instruction cache.
          float v[MT][Rows::NT][4];
          if (kind == 0)
            t.embed_rows(v, w);
          else if (kind == 5)
            t.decoded_rows(v);
          else
            load_rows(hw, v);
          const RtNorm& n = kind == 0   ? m.embed_norm
                            : kind == 1 ? b.ln1
                            : kind == 2 ? b.ln2
                            : kind == 3 ? m.final_norm
                                        : m.dec_norm;
          norm_rows<T>(v, fl, n);
          if (kind == 0) {
            save_rows(hw, v);
          } else if (kind == 3) {
            t.flat_store(v);
          } else {
            uint32_t ap[MT][Rows::KT][4];
            pack_rows<T>(ap, v);
            if (kind == 1)
              t.attention(b, w, ap);
            else if (kind == 2)
              t.mlp(b, w, ap);
            else
              t.out_product(ap, w);
          }
        } else {
          if (kind == 0) t.embed(w);
          if (kind == 1 || kind == 2) {
            uint32_t ap[MT][Rows::KT][4];
            if (kind == 1) {
              t.normed(ap, b.ln1);
              t.attention(b, w, ap);
            } else {
              t.normed(ap, b.ln2);
              t.mlp(b, w, ap);
            }
          }
          if (kind == 3) t.flatten();
          if (kind == 5) t.output(w);
        }
      });
}

}  // namespace ie::sr::rt
