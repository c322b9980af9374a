// The row-tile form's strict-fp32 kernel (FFMA, no Tensor Cores): the whole pre-LN transformer autoencoder
// (row_ffma_model.h) for a tile of samples in shared memory, one persistent CTA per SM. Depends on CUDA alone, so
// tests/kernels/row_ffma_lab.cu builds it with nvcc. Not routed to by the engine: measured slower than the per-step
// fp32 path at every batch (the lab's header has the figures); strict fp32 runs per step.
//
// Why its own kernel: the per-step fp32 path writes and reads every activation through global memory (the MLP's
// hidden layer alone is 0.67 GB at 65536 samples) and runs its products as separate cuBLASLt calls at K = 64.
// Here the products are register-tiled SGEMMs on shared memory:
//  - activations are column-major ([col][row], row stride ld), so a thread's 4 consecutive rows at one k are one
//    16-byte load, as are its 4 consecutive columns of W [k][n]: 2 loads per 16 FFMAs;
//  - a warp computes 32 rows x 16 columns (lanes: 8 row groups x 4 column groups), so a load instruction touches
//    128 contiguous bytes of A and 64 of W, and a store 8 x 16 contiguous bytes: no bank conflicts;
//  - W streams through two shared-memory slots in chunks of whole rows, one chunk ahead, across Linears and tiles
//    (the next Linear's first chunk arrives while LayerNorm or attention runs); a chunk is contiguous in global
//    and shared memory, so one thread moves it with one bulk copy;
//  - the epilogues (bias, RoPE on q and k, GELU, the residual) act on the accumulators before the one store;
//  - LayerNorm is a thread per row (two passes: mean, then the variance of the deviations), attention a thread per
//    (sample, head, query) with the scores in registers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layers/common/activation_device.cuh"
#include "layers/sample_resident/ffma_common.cuh"
#include "layers/sample_resident/row_ffma_model.h"

namespace ie::sr::rf {

using Args = ffma::Args<RfLayout>;
using namespace ffma::skip;

// The weight stream: the next chunk to issue (Linear, first row) over ffma_common.cuh's slots.
struct Stream : dev::WeightStream {
  int lin = 0, k0 = 0;
};

__device__ __forceinline__ void issue_chunk(const RfLayout& l, const float* __restrict__ w, float* sm, Stream& s) {
  const RfGemm& g = l.gemm[s.lin];
  const int rows = min(g.kc, g.k - s.k0);
  dev::slots_issue(ffma::slots_of(l, sm), w + g.w + static_cast<int64_t>(s.k0) * g.n, rows * g.n * 4, s);
  s.k0 += rows;
  if (s.k0 >= g.k) s.k0 = 0, s.lin = s.lin + 1 == l.linears ? 0 : s.lin + 1;
}

__device__ __forceinline__ const float* next_chunk(const RfLayout& l, const float* __restrict__ w, float* sm,
                                                   Stream& s) {
  return ffma::next_chunk(l, sm, s, [&] { issue_chunk(l, w, sm, s); });
}

// What a row Linear's epilogue does besides the bias.
struct Epilogue {
  int act = 0;                      // dev::Act
  const float* rope_cos = nullptr;  // RoPE on columns [0, rope_cols), pairs (2i, 2i + 1) of each head
  const float* rope_sin = nullptr;
  int rope_cols = 0, head_dim = 0, seq = 1;
  bool residual = false;    // out += the product (out holds the residual stream)
  float* global = nullptr;  // instead of `out`: rows to global memory, [row][n], rows < valid_rows
  int valid_rows = 0;
  bool skip = false;  // the lab's attribution: the chunks pass, nothing is computed
};

// out[n][row] = epilogue(sum_k in[k][row] W[k][n] + bias[n]) for the tile's rows_pad rows: warp tiles of 32 G rows x
// 16 columns dealt to the warps, MAXT at most per warp (the builder checks). A lane holds G groups of 4 rows, 32
// apart (each 16-byte load of the warp then spans 128 contiguous bytes), times 4 columns.
template <int MAXT, int G>
__device__ __forceinline__ void linear_rows(const RfLayout& l, int lin, const float* in, float* out, const float* bias,
                                            const Epilogue& e, const float* __restrict__ w, float* sm, Stream& s) {
  const RfGemm g = l.gemm[lin];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  const int tiles_n = g.n >> 4, tiles = (l.rows_pad / (32 * G)) * tiles_n;
  const int ld = l.ld;
  float acc[MAXT][G][4][4];
#pragma unroll
  for (int j = 0; j < MAXT; ++j)
#pragma unroll
    for (int q = 0; q < G; ++q)
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[j][q][r][c] = 0.f;
  const int row_in = (lane & 7) * 4, col_in = (lane >> 3) * 4;
  if (e.skip) {
    for (int k0 = 0; k0 < g.k; k0 += g.kc) next_chunk(l, w, sm, s);
    return;
  }
  const int mine = (tiles - warp + warps - 1) / warps;  // warp tiles of this warp (warp-uniform)
  for (int k0 = 0; k0 < g.k; k0 += g.kc) {
    const float* wc = next_chunk(l, w, sm, s);
    const int rows = min(g.kc, g.k - k0);
#pragma unroll
    for (int j = 0; j < MAXT; ++j) {
      if (j >= mine) break;
      const int t = warp + j * warps;
      const float* ap = in + static_cast<int64_t>(k0) * ld + (t / tiles_n) * (32 * G) + row_in;
      const float* bp = wc + (t % tiles_n) * 16 + col_in;
      // Software-pipelined: the next k's operands load while this k's FFMAs run (the last k reloads itself).
      float4 a[G], b = *reinterpret_cast<const float4*>(bp);
#pragma unroll
      for (int q = 0; q < G; ++q) a[q] = *reinterpret_cast<const float4*>(ap + 32 * q);
#pragma unroll 4
      for (int kk = 0; kk < rows; ++kk) {
        const int step = kk + 1 < rows;
        ap += step * ld, bp += step * g.n;
        float4 an[G];
#pragma unroll
        for (int q = 0; q < G; ++q) an[q] = *reinterpret_cast<const float4*>(ap + 32 * q);
        const float4 bn = *reinterpret_cast<const float4*>(bp);
        const float bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
        for (int q = 0; q < G; ++q) {
          const float av[4] = {a[q].x, a[q].y, a[q].z, a[q].w};
#pragma unroll
          for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c) acc[j][q][r][c] = fmaf(av[r], bv[c], acc[j][q][r][c]);
        }
#pragma unroll
        for (int q = 0; q < G; ++q) a[q] = an[q];
        b = bn;
      }
    }
  }
#pragma unroll
  for (int j = 0; j < MAXT; ++j) {
    const int t = warp + j * warps;
    if (t >= tiles) break;
#pragma unroll
    for (int q = 0; q < G; ++q) {
      const int row0 = (t / tiles_n) * (32 * G) + 32 * q + row_in, col0 = (t % tiles_n) * 16 + col_in;
      float v[4][4];
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) v[r][c] = acc[j][q][r][c] + bias[col0 + c];
      if (col0 < e.rope_cols) {
        const int half = e.head_dim >> 1, i0 = (col0 % e.head_dim) >> 1;
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int pos = (row0 + r) % e.seq;
#pragma unroll
          for (int p = 0; p < 2; ++p) {
            const float cs = e.rope_cos[pos * half + i0 + p], sn = e.rope_sin[pos * half + i0 + p];
            const float x0 = v[r][2 * p], x1 = v[r][2 * p + 1];
            v[r][2 * p] = x0 * cs - x1 * sn;
            v[r][2 * p + 1] = x0 * sn + x1 * cs;
          }
        }
      }
      if (e.act == static_cast<int>(dev::Act::Gelu)) {
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
          for (int c = 0; c < 4; ++c) v[r][c] = dev::gelu_erf(v[r][c]);
      }
      if (e.global) {
#pragma unroll
        for (int r = 0; r < 4; ++r)
          if (row0 + r < e.valid_rows)
            *reinterpret_cast<float4*>(e.global + static_cast<int64_t>(row0 + r) * g.n + col0) =
                make_float4(v[r][0], v[r][1], v[r][2], v[r][3]);
        continue;
      }
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        float4* o = reinterpret_cast<float4*>(out + static_cast<int64_t>(col0 + c) * ld + row0);
        float4 x = make_float4(v[0][c], v[1][c], v[2][c], v[3][c]);
        if (e.residual) {
          const float4 h = *o;
          x.x += h.x, x.y += h.y, x.z += h.z, x.w += h.w;
        }
        *o = x;
      }
    }
  }
}

// out[c][row] = act((in[c][row] - mean) / sqrt(var + eps) gamma[c] + beta[c]) for rows < rows: ln_tpr adjacent
// lanes per row, each holding PER columns (every ln_tpr-th) in registers (ld = 32 / ln_tpr mod 32 puts a warp's
// loads in distinct banks), the statistics by shuffles: the mean, then the variance of the deviations.
template <int PER>
__device__ __forceinline__ void layer_norm_lanes(const RfLayout& l, const float* in, float* out, const float* gamma,
                                                 const float* beta, const RtNorm& n) {
  const int tpr = l.ln_tpr, sub = threadIdx.x & (tpr - 1), stride = tpr * l.ld;
  const int rows_per_pass = blockDim.x / tpr;
  const float inv = 1.f / static_cast<float>(PER * tpr);
  gamma += sub, beta += sub;
  for (int base = 0; base < l.rows; base += rows_per_pass) {  // the same trip count in every lane: shuffles below
    const int r = base + static_cast<int>(threadIdx.x) / tpr;
    const bool live = r < l.rows;
    const float* x = in + sub * l.ld + (live ? r : 0);
    float v[PER], s4[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int i = 0; i < PER; ++i) v[i] = x[i * stride], s4[i & 3] += v[i];
    float sum = (s4[0] + s4[1]) + (s4[2] + s4[3]);
    for (int o = 1; o < tpr; o <<= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    const float mean = sum * inv;
#pragma unroll
    for (int i = 0; i < 4; ++i) s4[i] = 0.f;
#pragma unroll
    for (int i = 0; i < PER; ++i) s4[i & 3] = fmaf(v[i] - mean, v[i] - mean, s4[i & 3]);
    float var = (s4[0] + s4[1]) + (s4[2] + s4[3]);
    for (int o = 1; o < tpr; o <<= 1) var += __shfl_xor_sync(0xffffffffu, var, o);
    const float rstd = 1.f / sqrtf(var * inv + n.eps);
    if (!live) continue;
    float* y = out + sub * l.ld + r;
    const bool gelu = n.act == static_cast<int>(dev::Act::Gelu);
#pragma unroll
    for (int i = 0; i < PER; ++i) {
      float t = fmaf((v[i] - mean) * rstd, gamma[i * tpr], beta[i * tpr]);
      if (gelu) t = dev::gelu_erf(t);
      y[i * stride] = t;
    }
  }
}

// Any row length: a thread per row, the passes over shared memory.
__device__ __forceinline__ void layer_norm_generic(const RfLayout& l, const float* in, float* out, int cols,
                                                   const float* gamma, const float* beta, const RtNorm& n) {
  const int ld = l.ld;
  const float inv = 1.f / static_cast<float>(cols);
  for (int r = threadIdx.x; r < l.rows; r += blockDim.x) {
    const float* x = in + r;
    float sum = 0.f;
    for (int c = 0; c < cols; ++c) sum += x[c * ld];
    const float mean = sum * inv;
    float var = 0.f;
    for (int c = 0; c < cols; ++c) var = fmaf(x[c * ld] - mean, x[c * ld] - mean, var);
    const float rstd = 1.f / sqrtf(var * inv + n.eps);
    for (int c = 0; c < cols; ++c) {
      float t = fmaf((x[c * ld] - mean) * rstd, gamma[c], beta[c]);
      if (n.act == static_cast<int>(dev::Act::Gelu)) t = dev::gelu_erf(t);
      out[c * ld + r] = t;
    }
  }
}

__device__ __forceinline__ void layer_norm_rows(const RfLayout& l, const float* in, float* out, int cols,
                                                const float* sm, const RtNorm& n) {
  if (l.m.skip & kSkipNorms) return;
  const float* gamma = sm + l.floats_smem + n.gamma;
  const float* beta = sm + l.floats_smem + n.beta;
  switch (cols / l.ln_tpr) {  // the builder picks ln_tpr so that a lane holds one of these
    case 8:
      return layer_norm_lanes<8>(l, in, out, gamma, beta, n);
    case 16:
      return layer_norm_lanes<16>(l, in, out, gamma, beta, n);
    case 32:
      return layer_norm_lanes<32>(l, in, out, gamma, beta, n);
    default:
      return layer_norm_generic(l, in, out, cols, gamma, beta, n);
  }
}

// out[h hd + d][row] = softmax_j(scale q . k_j) v_j per (sample, head, query): q | k | v are `qkv`'s rows
// [0, width), [width, 2 width), [2 width, 3 width). A thread takes Q queries of one (sample, head) (Q = 2 where the
// single queries outnumber the threads: each key and value loaded serves both); query groups vary fastest over the
// threads, then samples, so a warp's key and value loads are broadcasts over one sample's threads, its samples in
// different banks.
template <int Q>
__device__ __forceinline__ void attention_items(const RfLayout& l, const float* qkv, float* out, float scale) {
  const RtModel& m = l.m;
  const int seq = m.seq, hd = m.head_dim, width = m.width, ld = l.ld;
  const int groups = (seq + Q - 1) / Q, items = l.tile * m.heads * groups;
  for (int it = threadIdx.x; it < items; it += blockDim.x) {
    const int qg = it % groups, rest = it / groups;
    const int smp = rest % l.tile, head = rest / l.tile;
    const int base = smp * seq;
    int row[Q];
    bool live[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) {  // a short last group recomputes its first query
      live[q] = Q * qg + q < seq;
      row[q] = base + (live[q] ? Q * qg + q : Q * qg);
    }
    float sc[Q][kRfMaxSeq];
#pragma unroll
    for (int q = 0; q < Q; ++q)
#pragma unroll
      for (int j = 0; j < kRfMaxSeq; ++j) sc[q][j] = 0.f;
    const float* qp = qkv + (head * hd) * ld;
    const float* kp = qkv + (width + head * hd) * ld + base;
#pragma unroll 2
    for (int d = 0; d < hd; ++d) {
      float qd[Q];
#pragma unroll
      for (int q = 0; q < Q; ++q) qd[q] = qp[d * ld + row[q]];
#pragma unroll
      for (int j = 0; j < kRfMaxSeq; ++j)
        if (j < seq) {
          const float k = kp[d * ld + j];
#pragma unroll
          for (int q = 0; q < Q; ++q) sc[q][j] = fmaf(qd[q], k, sc[q][j]);
        }
    }
    float inv[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) {
      float mx = -3.402823466e38f;
#pragma unroll
      for (int j = 0; j < kRfMaxSeq; ++j)
        if (j < seq) mx = fmaxf(mx, sc[q][j] * scale);
      float sum = 0.f;
#pragma unroll
      for (int j = 0; j < kRfMaxSeq; ++j) {
        sc[q][j] = j < seq ? expf(sc[q][j] * scale - mx) : 0.f;
        sum += sc[q][j];
      }
      inv[q] = 1.f / sum;
    }
    const float* vp = qkv + (2 * width + head * hd) * ld + base;
    float* op = out + (head * hd) * ld;
#pragma unroll 2
    for (int d = 0; d < hd; ++d) {
      float o[Q];
#pragma unroll
      for (int q = 0; q < Q; ++q) o[q] = 0.f;
#pragma unroll
      for (int j = 0; j < kRfMaxSeq; ++j)
        if (j < seq) {
          const float v = vp[d * ld + j];
#pragma unroll
          for (int q = 0; q < Q; ++q) o[q] = fmaf(sc[q][j], v, o[q]);
        }
#pragma unroll
      for (int q = 0; q < Q; ++q)
        if (live[q]) op[d * ld + row[q]] = o[q] * inv[q];
    }
  }
}

__device__ __forceinline__ void attention_rows(const RfLayout& l, const float* qkv, float* out, float scale) {
  if (l.m.skip & kSkipAttentionCore) return;
  if (l.tile * l.m.heads * l.m.seq <= static_cast<int>(blockDim.x))
    attention_items<1>(l, qkv, out, scale);
  else
    attention_items<2>(l, qkv, out, scale);
}

// The tile's input rows into `dst` ([col][row]; zeros past the batch): 16-byte loads along a row.
__device__ __forceinline__ void load_input(const RfLayout& l, const float* __restrict__ x, int64_t row0,
                                           int64_t valid_rows, float* dst) {
  const int per_row = l.m.slice / 4, ld = l.ld;
  const int items = l.rows * per_row;
  for (int it = threadIdx.x; it < items; it += blockDim.x) {
    const int r = it / per_row, c = (it % per_row) * 4;
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (r < valid_rows) v = __ldg(reinterpret_cast<const float4*>(x + (row0 + r) * l.m.slice + c));
    dst[c * ld + r] = v.x, dst[(c + 1) * ld + r] = v.y, dst[(c + 2) * ld + r] = v.z, dst[(c + 3) * ld + r] = v.w;
  }
}

template <int THREADS, int G, int MAXT, int MAXD, int CTAS>
__global__ void __launch_bounds__(THREADS, CTAS) row_ffma_kernel(const __grid_constant__ Args a) {
  extern __shared__ float4 smem4[];
  float* sm = reinterpret_cast<float*>(smem4);
  const RfLayout& l = a.l;
  const RtModel& m = l.m;
  const float* fl = sm + l.floats_smem;
  float* h = sm + l.h_smem;
  float* act = sm + l.a_smem;
  float* big = sm + l.big_smem;
  float* z = sm + l.z_smem;
  // The floats, and zeros in the activations (rows past the tile's samples are computed, never read).
  for (int i = threadIdx.x; i < m.floats_count; i += blockDim.x) sm[l.floats_smem + i] = a.floats[i];
  for (int i = threadIdx.x; i < (2 * m.width + l.big_rows) * l.ld; i += blockDim.x) sm[l.h_smem + i] = 0.f;
  dev::init_slots(ffma::slots_of(l, sm));
  __syncthreads();
  Stream st;
  issue_chunk(l, a.weights, sm, st);
  const int64_t tiles = (a.batch + l.tile - 1) / l.tile;
  int lin = 0;
  auto linear = [&](const RtLinear& L, const float* in, float* out, const Epilogue& e) {
    linear_rows<MAXT, G>(l, lin++, in, out, fl + L.bias, e, a.weights, sm, st);
  };
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int64_t sample0 = t * l.tile, valid = min(static_cast<int64_t>(l.tile), a.batch - sample0);
    lin = 0;
    if (!(m.skip & kSkipEmbed)) load_input(l, a.x, sample0 * m.seq, valid * m.seq, big);
    Epilogue plain;
    plain.act = m.embed.act, plain.skip = m.skip & kSkipEmbed;
    linear(m.embed, big, act, plain);
    __syncthreads();
    layer_norm_rows(l, act, h, m.width, sm, m.embed_norm);
    for (int b = 0; b < m.blocks; ++b) {
      const RtBlock& blk = m.block[b];
      __syncthreads();
      layer_norm_rows(l, h, act, m.width, sm, blk.ln1);
      Epilogue qkv;
      qkv.act = blk.qkv.act, qkv.skip = m.skip & kSkipAttention;
      if (blk.rope_cos >= 0) {
        qkv.rope_cos = fl + blk.rope_cos, qkv.rope_sin = fl + blk.rope_sin;
        qkv.rope_cols = 2 * m.width, qkv.head_dim = m.head_dim, qkv.seq = m.seq;
      }
      linear(blk.qkv, act, big, qkv);
      __syncthreads();
      attention_rows(l, big, act, blk.scale);
      Epilogue res;
      res.act = blk.proj.act, res.residual = true, res.skip = m.skip & kSkipAttention;
      linear(blk.proj, act, h, res);
      __syncthreads();
      layer_norm_rows(l, h, act, m.width, sm, blk.ln2);
      Epilogue fc1;
      fc1.act = blk.fc1.act, fc1.skip = m.skip & kSkipMlp;
      linear(blk.fc1, act, big, fc1);
      res.act = blk.fc2.act, res.skip = m.skip & kSkipMlp;
      linear(blk.fc2, big, h, res);
    }
    __syncthreads();
    layer_norm_rows(l, h, act, m.width, sm, m.final_norm);
    const int seq = m.seq, ld = l.ld;
    ffma::encode(
        l.tile, seq, m.width, m.latent, l.gemm[lin].kc,
        [&](int smp, int pos, int c) { return act[c * ld + smp * seq + pos]; },
        [&] { return next_chunk(l, a.weights, sm, st); }, m.skip & kSkipEncoder, big, z, l.z_stride, fl + m.enc.bias,
        a.latent, sample0, valid);
    ++lin;
    ffma::decode<MAXD>(
        l.tile, seq, m.width, m.latent, l.gemm[lin].kc, z, l.z_stride, [&] { return next_chunk(l, a.weights, sm, st); },
        m.skip & kSkipDecoder, fl + m.dec.bias,
        [&](int smp, int pos, int c, float4 v) {
          float* o = h + c * ld + smp * seq + pos;  // column-major: the 4 columns ld apart
          o[0] = v.x, o[ld] = v.y, o[2 * ld] = v.z, o[3 * ld] = v.w;
        });
    ++lin;
    __syncthreads();
    layer_norm_rows(l, h, act, m.width, sm, m.dec_norm);
    Epilogue out;
    out.act = m.out.act, out.skip = m.skip & kSkipOutput;
    out.global = a.recon + sample0 * m.seq * m.slice;
    out.valid_rows = static_cast<int>(valid * m.seq);
    linear(m.out, act, nullptr, out);
  }
  dev::slots_wait(ffma::slots_of(l, sm),
                  st);  // the next tile's first chunk, issued past the last tile: landed before exit
}

// The kernel compiled for the layout's form (threads, row groups, CTAs per SM: kRfCompiled), nullptr for another.
using KernelFn = void (*)(Args);
template <int I = 0>
inline KernelFn kernel_for(const RfLayout& l) {
  if constexpr (I == sizeof(kRfCompiled) / sizeof(kRfCompiled[0])) {
    return nullptr;
  } else {
    constexpr RfCompiled c = kRfCompiled[I];
    if (l.threads == c.threads && l.row_groups == c.row_groups && l.ctas_per_sm == c.ctas_per_sm)
      return row_ffma_kernel<c.threads, c.row_groups, c.max_tiles, c.max_decoder_items, c.ctas_per_sm>;
    return kernel_for<I + 1>(l);
  }
}

}  // namespace ie::sr::rf
