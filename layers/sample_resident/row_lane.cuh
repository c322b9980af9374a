// The row-tile form in strict fp32 (FFMA, no Tensor Cores) with a row per lane: one lane keeps one row of a sample
// (width floats) in registers from the embedding to the output (row_ffma_model.h's RlLayout). Depends on CUDA alone,
// so tests/kernels/row_ffma_lab.cu builds it with nvcc. Not routed to by the engine: measured slower than the
// per-step fp32 path (its fully unrolled products overflow the instruction caches; the lab's header has the figures).
//
// Why a row per lane (after the tiled form, row_ffma.cuh, measured slower than the per-step path): with the row
// in registers a product needs no loads of its input; W [k][n] comes from shared memory as a broadcast (every
// lane of the warp reads the same 16 bytes), 4 FFMAs per load with no address arithmetic (k and n are compile-time
// offsets); LayerNorm, GELU, RoPE and the residual are the lane's own registers. Only attention crosses rows: a
// warp packs whole samples (the SSA: 3 of 10 rows in 32 lanes), so each head's k and v go through the warp's own
// shared memory with __syncwarp. The encoder (a sample's rows flattened) and the decoder (back to rows) are
// CTA-wide products over a flat copy of the tile's rows.
//  - attention: per head, k and v (then q) from the lane's LN output, RoPE in registers, k and v to shared memory,
//    the scores against the sample's keys, softmax, y = P v, then the projection accumulated into the residual;
//  - the MLP in chunks of 16 hidden units: fc1 + GELU into 16 registers, fc2 accumulated into the residual;
//  - weights stream by stage (a stage is q | k | v with the projection, fc1 with fc2, ...) into two slots by bulk
//    copy, one stage ahead, a barrier per stage.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layers/common/activation_device.cuh"
#include "layers/sample_resident/ffma_common.cuh"
#include "layers/sample_resident/row_ffma_model.h"

namespace ie::sr::rl {

using Args = ffma::Args<RlLayout>;
using namespace ffma::skip;

// The weight stream: the next chunk to issue over ffma_common.cuh's slots.
struct Stream : dev::WeightStream {
  int next = 0;
};

__device__ __forceinline__ void issue_chunk(const RlLayout& l, const float* __restrict__ w, float* sm, Stream& s) {
  const RlChunk c = l.chunk[s.next];
  dev::slots_issue(ffma::slots_of(l, sm), w + c.w, c.floats * 4, s);
  s.next = s.next + 1 == l.chunks ? 0 : s.next + 1;
}

__device__ __forceinline__ const float* next_chunk(const RlLayout& l, const float* __restrict__ w, float* sm,
                                                   Stream& s) {
  return ffma::next_chunk(l, sm, s, [&] { issue_chunk(l, w, sm, s); });
}

// out[N] += in[K] W[K][N], W's rows ldw floats apart in shared memory (the same addresses in every lane).
template <int K, int N>
__device__ __forceinline__ void gemv_acc(const float (&in)[K], const float* w, int ldw, float (&out)[N]) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const float* row = w + k * ldw;
#pragma unroll
    for (int n = 0; n < N; n += 4) {
      const float4 v = *reinterpret_cast<const float4*>(row + n);
      out[n] = fmaf(in[k], v.x, out[n]);
      out[n + 1] = fmaf(in[k], v.y, out[n + 1]);
      out[n + 2] = fmaf(in[k], v.z, out[n + 2]);
      out[n + 3] = fmaf(in[k], v.w, out[n + 3]);
    }
  }
}

template <int N>
__device__ __forceinline__ void load_bias(const float* b, float (&out)[N]) {
#pragma unroll
  for (int n = 0; n < N; n += 4) {
    const float4 v = *reinterpret_cast<const float4*>(b + n);
    out[n] = v.x, out[n + 1] = v.y, out[n + 2] = v.z, out[n + 3] = v.w;
  }
}

// y = act((x - mean) / sqrt(var + eps) gamma + beta) over the lane's row: the mean, then the variance of the
// deviations (four partial sums each).
template <int D>
__device__ __forceinline__ void norm_row(const float (&x)[D], float (&y)[D], const float* fl, const RtNorm& n,
                                         bool skip) {
  if (skip) {
#pragma unroll
    for (int i = 0; i < D; ++i) y[i] = x[i];
    return;
  }
  float s4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
  for (int i = 0; i < D; ++i) s4[i & 3] += x[i];
  const float mean = ((s4[0] + s4[1]) + (s4[2] + s4[3])) * (1.f / D);
#pragma unroll
  for (int i = 0; i < 4; ++i) s4[i] = 0.f;
#pragma unroll
  for (int i = 0; i < D; ++i) s4[i & 3] = fmaf(x[i] - mean, x[i] - mean, s4[i & 3]);
  const float var = ((s4[0] + s4[1]) + (s4[2] + s4[3])) * (1.f / D);
  const float rstd = 1.f / sqrtf(var + n.eps);
  const float* gamma = fl + n.gamma;
  const float* beta = fl + n.beta;
  const bool gelu = n.act == static_cast<int>(dev::Act::Gelu);
#pragma unroll
  for (int i = 0; i < D; ++i) {
    const float t = fmaf((x[i] - mean) * rstd, gamma[i], beta[i]);
    y[i] = gelu ? dev::gelu_erf(t) : t;
  }
}

// (x_2i, x_2i+1) rotated by the row's angles (cos, sin: [head_dim / 2] floats of its position).
template <int HD>
__device__ __forceinline__ void rope(float (&x)[HD], const float* cs, const float* sn) {
#pragma unroll
  for (int i = 0; i < HD / 2; ++i) {
    const float c = cs[i], s = sn[i], x0 = x[2 * i], x1 = x[2 * i + 1];
    x[2 * i] = x0 * c - x1 * s;
    x[2 * i + 1] = x0 * s + x1 * c;
  }
}

// One block's attention for the lane's row: per head k, v (to the warp's shared rows) and q from a = LN1(h), RoPE,
// the scores against the sample's keys, softmax, y = P v, and h += y Wproj (+ the projection's bias once).
template <int D, int HD>
__device__ __forceinline__ void attention(const RlLayout& l, const RtBlock& blk, const float (&a)[D], float (&h)[D],
                                          const float* wqkv, const float* wproj, const float* fl, float* kv_warp,
                                          int lane, int pos, int base, bool live) {
  const RtModel& m = l.m;
  const bool core = !(m.skip & kSkipAttentionCore), products = !(m.skip & kSkipAttention);
  const float* qkv_bias = fl + blk.qkv.bias;
  if (products) {
    const float* pb = fl + blk.proj.bias;
#pragma unroll
    for (int n = 0; n < D; ++n) h[n] += pb[n];
  }
  const float* cs = fl + blk.rope_cos + pos * (HD / 2);
  const float* sn = fl + blk.rope_sin + pos * (HD / 2);
  float* mine = kv_warp + lane * l.kv_stride;
#pragma unroll 1
  for (int hh = 0; hh < m.heads; ++hh) {
    float k[HD], v[HD], q[HD];
    load_bias(qkv_bias + D + hh * HD, k);
    load_bias(qkv_bias + 2 * D + hh * HD, v);
    load_bias(qkv_bias + hh * HD, q);
    if (products) {
      gemv_acc(a, wqkv + D + hh * HD, 3 * D, k);
      gemv_acc(a, wqkv + 2 * D + hh * HD, 3 * D, v);
      gemv_acc(a, wqkv + hh * HD, 3 * D, q);
    }
    if (blk.rope_cos >= 0) rope(k, cs, sn), rope(q, cs, sn);
#pragma unroll
    for (int d = 0; d < HD; d += 4) {
      *reinterpret_cast<float4*>(mine + d) = make_float4(k[d], k[d + 1], k[d + 2], k[d + 3]);
      *reinterpret_cast<float4*>(mine + HD + d) = make_float4(v[d], v[d + 1], v[d + 2], v[d + 3]);
    }
    __syncwarp();
    float y[HD];
#pragma unroll
    for (int d = 0; d < HD; ++d) y[d] = 0.f;
    if (core && live) {
      float sc[kRfMaxSeq];
      float mx = -3.402823466e38f;
#pragma unroll
      for (int j = 0; j < kRfMaxSeq; ++j) {
        sc[j] = 0.f;
        if (j < m.seq) {
          const float* kj = kv_warp + (base + j) * l.kv_stride;
#pragma unroll
          for (int d = 0; d < HD; d += 4) {
            const float4 kv4 = *reinterpret_cast<const float4*>(kj + d);
            sc[j] = fmaf(q[d], kv4.x, fmaf(q[d + 1], kv4.y, fmaf(q[d + 2], kv4.z, fmaf(q[d + 3], kv4.w, sc[j]))));
          }
          sc[j] *= blk.scale;
          mx = fmaxf(mx, sc[j]);
        }
      }
      float sum = 0.f;
#pragma unroll
      for (int j = 0; j < kRfMaxSeq; ++j) {
        sc[j] = j < m.seq ? expf(sc[j] - mx) : 0.f;
        sum += sc[j];
      }
      const float inv = 1.f / sum;
#pragma unroll
      for (int j = 0; j < kRfMaxSeq; ++j)
        if (j < m.seq) {
          const float* vj = kv_warp + (base + j) * l.kv_stride + HD;
          const float p = sc[j] * inv;
#pragma unroll
          for (int d = 0; d < HD; d += 4) {
            const float4 v4 = *reinterpret_cast<const float4*>(vj + d);
            y[d] = fmaf(p, v4.x, y[d]), y[d + 1] = fmaf(p, v4.y, y[d + 1]);
            y[d + 2] = fmaf(p, v4.z, y[d + 2]), y[d + 3] = fmaf(p, v4.w, y[d + 3]);
          }
        }
    }
    __syncwarp();  // every lane's reads of this head's k and v before the next head's writes
    if (products) gemv_acc(y, wproj + hh * HD * D, D, h);
  }
}

template <int D, int HD, int MAXD>
__global__ void __launch_bounds__(256, 1) row_lane_kernel(const __grid_constant__ Args a) {
  extern __shared__ float4 smem4[];
  float* sm = reinterpret_cast<float*>(smem4);
  const RlLayout& l = a.l;
  const RtModel& m = l.m;
  const float* fl = sm + l.floats_smem;
  float* flat = sm + l.scratch_smem;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int smp_w = lane / m.seq, pos = lane - smp_w * m.seq;
  const bool lane_live = smp_w < l.spw;  // lanes past the warp's whole samples compute on zeros, store nothing
  float* kv_warp = flat + warp * 32 * l.kv_stride;
  for (int i = threadIdx.x; i < m.floats_count; i += blockDim.x) sm[l.floats_smem + i] = a.floats[i];
  dev::init_slots(ffma::slots_of(l, sm));
  __syncthreads();
  Stream st;
  issue_chunk(l, a.weights, sm, st);
  const int64_t tiles = (a.batch + l.tile - 1) / l.tile;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t sample0 = t * l.tile, valid = min(static_cast<int64_t>(l.tile), a.batch - sample0);
    const int local = warp * l.spw + smp_w;
    const bool live = lane_live && local < valid;
    const int64_t row = (sample0 + local) * m.seq + pos;  // the lane's row of the global [batch x seq] rows
    // The embedding: h = LN(x W + b) (+ GELU).
    const float* wc = next_chunk(l, a.weights, sm, st);
    float h[D];
    load_bias(fl + m.embed.bias, h);
    if (live && !(m.skip & kSkipEmbed)) {
      const float* x = a.x + row * m.slice;
      const float* we = wc + m.embed.w;
      for (int k = 0; k < m.slice; k += 4) {
        const float4 xv = __ldg(reinterpret_cast<const float4*>(x + k));
        const float x4[4] = {xv.x, xv.y, xv.z, xv.w};
        gemv_acc(x4, we + k * D, D, h);
      }
    }
    norm_row(h, h, fl, m.embed_norm, m.skip & kSkipNorms);
    float act[D];
    for (int b = 0; b < m.blocks; ++b) {
      const RtBlock& blk = m.block[b];
      wc = next_chunk(l, a.weights, sm, st);  // q | k | v, then the projection
      norm_row(h, act, fl, blk.ln1, m.skip & kSkipNorms);
      attention<D, HD>(l, blk, act, h, wc + blk.qkv.w, wc + blk.proj.w, fl, kv_warp, lane, pos, smp_w * m.seq,
                       lane_live);
      wc = next_chunk(l, a.weights, sm, st);  // fc1, then fc2
      norm_row(h, act, fl, blk.ln2, m.skip & kSkipNorms);
      if (!(m.skip & kSkipMlp)) {
        const float* b2 = fl + blk.fc2.bias;
#pragma unroll
        for (int n = 0; n < D; ++n) h[n] += b2[n];
        const float* w1 = wc + blk.fc1.w;
        const float* w2 = wc + blk.fc2.w;
#pragma unroll 1
        for (int c = 0; c < m.hidden; c += 16) {
          float hid[16];
          load_bias(fl + blk.fc1.bias + c, hid);
          gemv_acc(act, w1 + c, m.hidden, hid);
          if (blk.fc1.act == static_cast<int>(dev::Act::Gelu)) {
#pragma unroll
            for (int j = 0; j < 16; ++j) hid[j] = dev::gelu_erf(hid[j]);
          }
          gemv_acc(hid, w2 + c * D, D, h);
        }
      }
    }
    // The encoder: LN, the sample's rows flattened (each lane its row), the CTA's product to the latents.
    norm_row(h, act, fl, m.final_norm, m.skip & kSkipNorms);
    __syncthreads();  // the last head's k and v reads before the flat rows overwrite them
    if (lane_live) {
      float* dst = flat + local * l.flat_stride + pos * l.row_stride;
#pragma unroll
      for (int c = 0; c < D; c += 4)
        *reinterpret_cast<float4*>(dst + c) = make_float4(act[c], act[c + 1], act[c + 2], act[c + 3]);
    }
    ffma::encode(
        l.tile, m.seq, D, m.latent, l.enc_kc,
        [&](int smp, int p, int c) { return flat[smp * l.flat_stride + p * l.row_stride + c]; },
        [&] { return next_chunk(l, a.weights, sm, st); }, m.skip & kSkipEncoder, sm + l.partial_smem, sm + l.z_smem,
        l.z_stride, fl + m.enc.bias, a.latent, sample0, valid);
    // The decoder back to the flat rows (every thread past the encoder's reads: its chunk's barrier), then each
    // lane's row: LN + GELU, the output Linear to recon.
    ffma::decode<MAXD>(
        l.tile, m.seq, D, m.latent, l.dec_kc, sm + l.z_smem, l.z_stride,
        [&] { return next_chunk(l, a.weights, sm, st); }, m.skip & kSkipDecoder, fl + m.dec.bias,
        [&](int smp, int p, int c, float4 v) {
          *reinterpret_cast<float4*>(flat + smp * l.flat_stride + p * l.row_stride + c) = v;
        });
    wc = next_chunk(l, a.weights, sm, st);  // the output Linear; its barrier publishes the decoder's rows
    if (lane_live) {
      const float* src = flat + local * l.flat_stride + pos * l.row_stride;
#pragma unroll
      for (int c = 0; c < D; c += 4) {
        const float4 v = *reinterpret_cast<const float4*>(src + c);
        h[c] = v.x, h[c + 1] = v.y, h[c + 2] = v.z, h[c + 3] = v.w;
      }
    }
    norm_row(h, act, fl, m.dec_norm, m.skip & kSkipNorms);
    if (live && !(m.skip & kSkipOutput)) {
      const float* wo = wc + m.out.w;
      float* out = a.recon + row * m.slice;
      for (int n = 0; n < m.slice; n += 4) {
        float o[4];
        load_bias(fl + m.out.bias + n, o);
        gemv_acc(act, wo + n, m.slice, o);
        *reinterpret_cast<float4*>(out + n) = make_float4(o[0], o[1], o[2], o[3]);
      }
    }
  }
  dev::slots_wait(ffma::slots_of(l, sm),
                  st);  // the next tile's first chunk, issued past the last tile: landed before exit
}

// The kernel for the layout's sizes (width and head dim compiled: kRlShapes), nullptr for others.
using KernelFn = void (*)(Args);
inline KernelFn kernel_for(const RlLayout& l) {
  constexpr RlShape s = kRlShapes[0];
  if (l.m.width == s.width && l.m.head_dim == s.head_dim)
    return row_lane_kernel<s.width, s.head_dim, kRlMaxDecoderItems>;
  return nullptr;
}

}  // namespace ie::sr::rl
