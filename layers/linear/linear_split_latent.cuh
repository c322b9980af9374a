// The latent products of a transformer autoencoder in strict fp32 on the split-operand Tensor Core products of
// linear_split.cuh (float32's accuracy from fp16 halves), one warp per 16 samples; the split sequence's
// (layers/sample_resident/split_sequence.h) encoder and decoder:
//  - encoder: z = flatten(LN(h)) [B, S D] x W [S D, L] + bias as S products of K = D, one per position s with its
//    LayerNorm in the prologue and the rows' scales of that position, summed in float: the final LayerNorm's pass
//    and a product reading K = S D floats from cuBLASLt go.
//  - decoder and output: per position s, u = act(LN(z W_s + bias_s)) [16 samples, D] in registers, whose
//    accumulators are the A fragments of the output product u W_out + bias (the m16n8 C fragments of two neighbouring
//    8-column tiles are the m16k16 A fragment of their 16 columns), written as recon's rows b S + s: the decoder's
//    rows never reach memory.
// W_s is W's rows (encoder) or columns (decoder) of position s, split and packed per position (pack_split_weights),
// all of them in shared memory. Depends on CUDA alone.
#pragma once

#include "layers/common/launch_limits.cuh"
#include "layers/linear/linear_split.cuh"

namespace ie::lin::split {

struct LatentParams {
  const float* h = nullptr;          // encoder input [batch, seq, width]
  const float* z = nullptr;          // decoder input [batch, latent]
  float* latent = nullptr;           // encoder output [batch, latent]
  float* recon = nullptr;            // decoder output [batch, seq, slice]
  const uint4* w = nullptr;          // encoder: seq x W_s [width, latent]; decoder: seq x W_s [latent, width], W_out
  const float* col_scale = nullptr;  // encoder: seq x latent; decoder: seq x width, then slice
  const float* bias = nullptr;       // encoder: latent; decoder: seq x width
  const float* out_bias = nullptr;   // decoder: slice
  const float* gamma = nullptr;      // the LayerNorm (width values): of h's rows (encoder), of the decoder's rows
  const float* beta = nullptr;
  float eps = 1e-5f;
  int64_t batch = 0;
  int seq = 0;
};

// K = width = 16 KT per position, N = latent = 16 NP (one chunk); the final LayerNorm kNorm.
template <int KT, int NP, Norm kNorm>
__global__ void __launch_bounds__(kThreads, 2) split_encoder_kernel(const LatentParams lp) {
  static_assert(NP <= kChunkPairs, "the latent in one chunk");
  constexpr int kPos = 2 * NP * KT * 32, K = 16 * KT, N = 16 * NP;
  extern __shared__ uint4 sw[];
  const int S = lp.seq;
  for (int i = threadIdx.x; i < S * kPos; i += kThreads) sw[i] = __ldg(lp.w + i);
  __syncthreads();
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  Params norm;  // normalize_a's parameters
  norm.in_gamma = lp.gamma, norm.in_beta = lp.beta, norm.in_eps = lp.eps;
  const int64_t tiles = (lp.batch + 15) / 16;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * kWarps + (threadIdx.x >> 5); t < tiles;
       t += static_cast<int64_t>(gridDim.x) * kWarps) {
    const int64_t b0 = t * 16 + g;
    float sum[2 * NP][4] = {};
    for (int s = 0; s < S; ++s) {
      float2 x[KT][4];
      load_rows(lp.h + static_cast<int64_t>(s) * K, static_cast<int64_t>(S) * K, b0, lp.batch, x);  // position s
      normalize_a<KT, kNorm>(norm, x);
      float2 s0, s1;
      uint32_t ah[KT][4], al[KT][4];
      split_rows(x, s0, s1, ah, al);
      float acc[2 * NP][4] = {};
      chunk_products<KT, NP, NP>(sw + s * kPos, ah, al, 0, acc);
#pragma unroll
      for (int j = 0; j < 2 * NP; ++j) {
        const float2 cs = __ldg(reinterpret_cast<const float2*>(lp.col_scale + s * N + j * 8 + 2 * q));
        sum[j][0] = fmaf(acc[j][0], s0.y * cs.x, sum[j][0]);
        sum[j][1] = fmaf(acc[j][1], s0.y * cs.y, sum[j][1]);
        sum[j][2] = fmaf(acc[j][2], s1.y * cs.x, sum[j][2]);
        sum[j][3] = fmaf(acc[j][3], s1.y * cs.y, sum[j][3]);
      }
    }
#pragma unroll
    for (int j = 0; j < 2 * NP; ++j) {
      const int c = j * 8 + 2 * q;
      const float2 b = __ldg(reinterpret_cast<const float2*>(lp.bias + c));
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t r = b0 + 8 * h;
        if (r < lp.batch)
          *reinterpret_cast<float2*>(lp.latent + r * N + c) = make_float2(sum[j][2 * h] + b.x, sum[j][2 * h + 1] + b.y);
      }
    }
  }
}

// K = latent = 16 KZ, width = 16 DP (one chunk: the LayerNorm's row), slice = 16 OP; the decoder's LayerNorm kNorm.
template <int KZ, int DP, int OP, Norm kNorm>
__global__ void __launch_bounds__(kThreads, 2) split_decoder_kernel(const LatentParams lp) {
  static_assert(DP <= kChunkPairs && OP <= kChunkPairs && kNorm != Norm::Off, "rows in one chunk");
  constexpr int kPos = 2 * DP * KZ * 32, kOut = 2 * OP * DP * 32, D = 16 * DP, O = 16 * OP;
  extern __shared__ uint4 sw[];
  const int S = lp.seq;
  for (int i = threadIdx.x; i < S * kPos + kOut; i += kThreads) sw[i] = __ldg(lp.w + i);
  __syncthreads();
  const uint4* sw_out = sw + S * kPos;
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int64_t tiles = (lp.batch + 15) / 16;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * kWarps + (threadIdx.x >> 5); t < tiles;
       t += static_cast<int64_t>(gridDim.x) * kWarps) {
    const int64_t b0 = t * 16 + g;
    float2 x[KZ][4];
    load_rows(lp.z, 16 * KZ, b0, lp.batch, x);
    float2 zs0, zs1;
    uint32_t zh[KZ][4], zl[KZ][4];
    split_rows(x, zs0, zs1, zh, zl);
    for (int s = 0; s < S; ++s) {
      float acc[2 * DP][4] = {};
      chunk_products<KZ, DP, DP>(sw + s * kPos, zh, zl, 0, acc);
      float2 v[2 * DP][2];
      float a[4 * DP], bb[4 * DP];
#pragma unroll
      for (int j = 0; j < 2 * DP; ++j) {
        const int c = j * 8 + 2 * q;
        const float2 cs = __ldg(reinterpret_cast<const float2*>(lp.col_scale + s * D + c));
        const float2 b = __ldg(reinterpret_cast<const float2*>(lp.bias + s * D + c));
        v[j][0] = make_float2(acc[j][0] * zs0.y * cs.x + b.x, acc[j][1] * zs0.y * cs.y + b.y);
        v[j][1] = make_float2(acc[j][2] * zs1.y * cs.x + b.x, acc[j][3] * zs1.y * cs.y + b.y);
        a[2 * j] = v[j][0].x, a[2 * j + 1] = v[j][0].y, bb[2 * j] = v[j][1].x, bb[2 * j + 1] = v[j][1].y;
      }
      float2 mean, inv;
      row_stats(a, bb, D, lp.eps, mean, inv);
      // The normalized rows as the output product's A fragments: k-step kk holds 8-column tiles 2 kk and 2 kk + 1.
      float2 u[DP][4];
#pragma unroll
      for (int kk = 0; kk < DP; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int j = 2 * kk + (i >> 1), h = i & 1;
          u[kk][i] =
              norm_pair<kNorm>(v[j][h], h ? mean.y : mean.x, h ? inv.y : inv.x, lp.gamma, lp.beta, j * 8 + 2 * q);
        }
      float2 us0, us1;
      uint32_t uh[DP][4], ul[DP][4];
      split_rows(u, us0, us1, uh, ul);
      float out[2 * OP][4] = {};
      chunk_products<DP, OP, OP>(sw_out, uh, ul, 0, out);
#pragma unroll
      for (int j = 0; j < 2 * OP; ++j) {
        const int c = j * 8 + 2 * q;
        const float2 cs = __ldg(reinterpret_cast<const float2*>(lp.col_scale + S * D + c));
        const float2 b = __ldg(reinterpret_cast<const float2*>(lp.out_bias + c));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int64_t r = b0 + 8 * h;
          const float is = h ? us1.y : us0.y;
          if (r < lp.batch)
            *reinterpret_cast<float2*>(lp.recon + (r * S + s) * O + c) =
                make_float2(out[j][2 * h] * is * cs.x + b.x, out[j][2 * h + 1] * is * cs.y + b.y);
        }
      }
    }
  }
}

// Shared memory of the two kernels: every position's split W_s (and the decoder's W_out).
inline size_t encoder_smem(int seq, int kt, int np) { return static_cast<size_t>(seq) * 2 * np * kt * 32 * 16; }
inline size_t decoder_smem(int seq, int kz, int dp, int op) {
  return (static_cast<size_t>(seq) * 2 * dp * kz * 32 + 2 * op * dp * 32) * 16;
}

// A persistent launch of a kernel walking 16-row tiles a warp at a time (`rows` of them): as many CTAs as are
// resident, at most one per 8 tiles.
template <class Kernel, class P>
cudaError_t launch_persistent(Kernel kernel, const P& p, int64_t rows, size_t smem, int sms, int smem_optin,
                              cudaStream_t s) {
  if (rows < 1) return cudaSuccess;
  if (smem > static_cast<size_t>(smem_optin)) return cudaErrorInvalidValue;
  int per_sm = 0;
  const cudaError_t err = dev::resident_blocks(kernel, kThreads, static_cast<int>(smem), smem_optin, &per_sm);
  if (err != cudaSuccess) return err;
  const int64_t ctas = (rows + 16 * kWarps - 1) / (16 * kWarps);
  const int64_t fill = static_cast<int64_t>(per_sm < 1 ? 1 : per_sm) * sms;
  kernel<<<static_cast<unsigned>(ctas < fill ? ctas : fill), kThreads, smem, s>>>(p);
  return cudaGetLastError();
}

template <class Kernel>
cudaError_t launch_latent(Kernel kernel, const LatentParams& lp, size_t smem, int sms, int smem_optin, cudaStream_t s) {
  return launch_persistent(kernel, lp, lp.batch, smem, sms, smem_optin, s);
}

template <int KT, int NP, Norm kNorm>
cudaError_t launch_encoder(const LatentParams& lp, int sms, int smem_optin, cudaStream_t s) {
  return launch_latent(split_encoder_kernel<KT, NP, kNorm>, lp, encoder_smem(lp.seq, KT, NP), sms, smem_optin, s);
}

template <int KZ, int DP, int OP, Norm kNorm>
cudaError_t launch_decoder(const LatentParams& lp, int sms, int smem_optin, cudaStream_t s) {
  return launch_latent(split_decoder_kernel<KZ, DP, OP, kNorm>, lp, decoder_smem(lp.seq, KZ, DP, OP), sms, smem_optin,
                       s);
}

}  // namespace ie::lin::split
