// ie.Attention with its q, k and v projections in strict fp32: one kernel reads x [B, S, K] once, optionally
// normalizes its rows (a pre-LN block's LayerNorm, in the product's prologue), multiplies them by the split [K, 3E]
// weight on fp16 Tensor Cores at float32's accuracy (the split operands of layers/linear/linear_split.cuh), adds the
// bias, rotates q and k (RoPE) and scales q in the epilogue as it writes the CTA's q | k | v to shared memory, and
// attends from there (attend_row of attention_fused.cuh): q, k and v never reach global memory. Against the product
// into global memory and the attention kernel reading it back, 2 x 3E floats a row of traffic go.
//
// A CTA takes groups of `group` whole samples whose rows fill whole 16-row tiles (split_group), one warp per tile,
// the split W^T staged in shared memory once; the products of a group, a barrier, its attention (one lane or a team
// per query row, as the projected kernel), a barrier. Depends on CUDA alone.
//
// Measured slower than the product and the attention kernel apart (ncu, H200, the SSA's block at 65536 samples:
// 0.626 ms against 0.245 + 0.309; tools/results/h200/split_sequence/call_b): its CTAs of five warps, two per SM under
// the weight's 48 KB and the group's 63 KB, wait out the products' latency, then the attention's, with nothing else
// resident to hide either. Kept as IE_SPLIT_ATTENTION=joined of the split sequence, tested, for the next attempt
// (double-buffered groups, or the q | k | v rows in registers instead of shared memory).
#pragma once

#include "layers/attention/attention_fused.cuh"
#include "layers/common/launch_limits.cuh"
#include "layers/linear/linear_split.cuh"

namespace ie::att::split {

using lin::split::Norm;

struct SplitParams {
  lin::split::Params lin;  // a = x [batch * seq, k]; w, col_scale, bias of the [k, 3E] product; rows; in_* LayerNorm
  Params att;              // batch, seq, heads, dim, cos / sin (or null), scale; y [batch, seq, E]
  int group = 0;           // samples per group (split_group)
  int team = 1;            // lanes per query row
};

constexpr int kMaxWarps = 16;

// Samples per group: the fewest whole samples whose rows fill whole 16-row tiles, taken as many times as keep the
// CTA within 8 warps; 0 when those fewest need more than kMaxWarps tiles.
inline int split_group(int seq) {
  int g = 1;
  while ((g * seq) % 16) ++g;
  const int tiles = g * seq / 16;
  if (tiles > kMaxWarps) return 0;
  return g * (tiles >= 8 ? 1 : 8 / tiles);
}

// W^T's split blocks, then the group's q | k | v rows (3E + 4 floats apart: 16-byte rows for attend_row's loads).
inline size_t split_attention_smem(int kt, int np, int rows) {
  return static_cast<size_t>(2 * np * kt * 32) * 16 + static_cast<size_t>(rows) * (16 * np + 4) * sizeof(float);
}

template <int KT, int NP, Norm kIn, int DC>
__global__ void __launch_bounds__(kMaxWarps * 32) split_attention_kernel(const SplitParams sp) {
  constexpr int kBlocks = NP * KT * 32, N = 16 * NP, ldq = N + 4;
  constexpr int NC = NP < lin::split::kChunkPairs ? NP : lin::split::kChunkPairs;
  static_assert(NP % NC == 0, "3E in whole chunks");
  extern __shared__ uint4 smem[];
  uint4* sw = smem;
  float* qs = reinterpret_cast<float*>(smem + 2 * kBlocks);
  const lin::split::Params& p = sp.lin;
  const Params& a = sp.att;
  for (int i = threadIdx.x; i < 2 * kBlocks; i += blockDim.x) sw[i] = __ldg(p.w + i);
  __syncthreads();
  const int S = a.seq, D = a.dim, H = a.heads, E = H * D, G = sp.group, team = sp.team;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const float qscale = a.scale * 1.4426950408889634f;
  for (int64_t b0 = static_cast<int64_t>(blockIdx.x) * G; b0 < a.batch; b0 += static_cast<int64_t>(gridDim.x) * G) {
    {
      const int64_t t = b0 * S / 16 + warp;  // b0 S is a multiple of 16
      const int64_t r0 = t * 16 + g, r1 = r0 + 8;
      float2 x[KT][4];
      lin::split::load_rows(p.a, p.k, r0, p.rows, x);
      lin::split::normalize_a<KT, kIn>(p, x);
      float2 s0, s1;
      uint32_t ah[KT][4], al[KT][4];
      lin::split::split_rows(x, s0, s1, ah, al);
      const int pos[2] = {static_cast<int>(r0 % S), static_cast<int>(r1 % S)};
      float* row[2] = {qs + (warp * 16 + g) * ldq, qs + (warp * 16 + g + 8) * ldq};
#pragma unroll
      for (int j0 = 0; j0 < NP; j0 += NC) {
        float acc[2 * NC][4] = {};
        lin::split::chunk_products<KT, NP, NC>(sw, ah, al, j0, acc);
#pragma unroll
        for (int j = 0; j < 2 * NC; ++j) {
          const int c = (2 * j0 + j) * 8 + 2 * q;
          const float2 cs = __ldg(reinterpret_cast<const float2*>(p.col_scale + c));
          const float2 b = __ldg(reinterpret_cast<const float2*>(p.bias + c));
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const float is = h ? s1.y : s0.y;
            float v0 = acc[j][2 * h] * is * cs.x + b.x, v1 = acc[j][2 * h + 1] * is * cs.y + b.y;
            if (c < 2 * E && a.cos) {  // q and k: rotate the pair (c, c + 1) at the row's position
              const int idx = pos[h] * (D / 2) + ((c < E ? c : c - E) % D) / 2;
              const float cn = __ldg(a.cos + idx), sn = __ldg(a.sin + idx);
              const float r = v0 * cn - v1 * sn;
              v1 = v0 * sn + v1 * cn, v0 = r;
            }
            if (c < E) v0 *= qscale, v1 *= qscale;
            *reinterpret_cast<float2*>(row[h] + c) = make_float2(v0, v1);
          }
        }
      }
    }
    __syncthreads();  // the group's q | k | v
    const int64_t left = a.batch - b0;
    const int nb = static_cast<int>(left < G ? left : G);
    const int per = H * S * team;
    for (int idx = threadIdx.x; idx < nb * per; idx += blockDim.x) {
      const int bl = idx / per, rest = idx - bl * per;
      const int h = rest / (S * team), i = (rest / team) % S, tt = rest % team;
      const float* base = qs + bl * S * ldq + h * D + tt * DC;
      float acc[DC];
      const float inv = attend_row<DC>(base + i * ldq, base + E, base + 2 * E, ldq, S, team, acc);
      store_row<float, DC>(static_cast<float*>(a.y) + ((b0 + bl) * S + i) * E + h * D, tt, D, acc, inv);
    }
    __syncthreads();  // before the next group's products overwrite q | k | v
  }
}

// Why the kernel does not take a shape (K = 16 KT, 3E = 16 NP compiled; the head dim and sequence), or "".
inline const char* split_attention_unsupported(const Params& a, int k, int kt, int np) {
  if (k != 16 * kt || 3 * a.heads * a.dim != 16 * np) return "x's width or 3E other than the compiled kernel's";
  if (a.dim != 8 && a.dim % 16 != 0) return "a head dim other than 8 or a multiple of 16";
  const int team = a.dim <= 16 ? 1 : a.dim / 16;
  if ((team & (team - 1)) != 0 || team > kMaxTeam) return "a head dim whose lanes per row are not a power of two";
  if (split_group(a.seq) == 0) return "a sequence whose whole samples fill 16-row tiles only past 16 warps";
  return "";
}

// Launches on `s` with as many CTAs as fit (sms: the device's SM count, smem_optin its opt-in limit).
template <int KT, int NP, Norm kIn>
cudaError_t launch_split_attention(SplitParams sp, int sms, int smem_optin, cudaStream_t s) {
  if (*split_attention_unsupported(sp.att, sp.lin.k, KT, NP)) return cudaErrorInvalidValue;
  if (kIn != Norm::Off && !sp.lin.in_gamma) return cudaErrorInvalidValue;
  if (sp.att.batch < 1) return cudaSuccess;
  sp.group = split_group(sp.att.seq);
  sp.team = sp.att.dim <= 16 ? 1 : sp.att.dim / 16;
  sp.lin.rows = sp.att.batch * sp.att.seq;
  const int tiles = sp.group * sp.att.seq / 16, threads = 32 * tiles;
  const size_t smem = split_attention_smem(KT, NP, 16 * tiles);
  if (smem > static_cast<size_t>(smem_optin)) return cudaErrorInvalidValue;
  auto kernel = sp.att.dim == 8 ? split_attention_kernel<KT, NP, kIn, 8> : split_attention_kernel<KT, NP, kIn, 16>;
  int per_sm = 0;
  cudaError_t err = dev::resident_blocks(kernel, threads, static_cast<int>(smem), smem_optin, &per_sm);
  if (err != cudaSuccess) return err;
  const int64_t groups = (sp.att.batch + sp.group - 1) / sp.group;
  const int64_t fill = static_cast<int64_t>(per_sm < 1 ? 1 : per_sm) * sms;
  kernel<<<static_cast<unsigned>(groups < fill ? groups : fill), threads, smem, s>>>(sp);
  return cudaGetLastError();
}

}  // namespace ie::att::split
