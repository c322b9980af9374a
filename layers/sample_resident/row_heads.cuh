// The row-tile kernel with a 16-row tile shared by a group of warps, one attention head each: for small batches,
// where the time is one warp's dependent chain through the whole model (row_tile.cuh: a warp alone on its rows),
// the chain is split across the group. Depends on CUDA alone (the lab builds it with nvcc).
//
// Warp c of a group owns the columns of head c in every width-wide product:
//  - the residual stream of the tile's rows in shared memory, every warp reading whole rows and writing only its
//    columns (the LayerNorms' statistics need whole rows: each warp normalizes them itself, no exchange);
//  - attention: q, k and v of head c only, so the head's whole softmax stays in the warp; its output goes to the
//    group's shared A fragments, a group barrier, then every warp reads the whole row for its projection columns;
//  - the MLP: fc1's 32-column chunks round robin over the group (with GELU), the hidden rows exchanged the same
//    way, fc2's columns of head c;
//  - the embedding and the final LayerNorm by the group's first warp (one product, whole rows), the output
//    Linear's 16-column groups round robin; the encoder and decoder are CTA-wide as in row_tile.cuh.
// Two group barriers per block (bar.sync with the group's id, 1 + group index) beside the stage barriers.
#pragma once

#include "layers/sample_resident/row_tile.cuh"

namespace ie::sr::rt {

template <class T, int D, int HD>
struct HeadGroup {
  static constexpr int G = D / HD, NT = D / 8, KT = D / 16, HP = HD / 16, HN = HD / 8;
  Tile<T, D, HD, 1, true>& t;
  int c;     // the warp's head
  int bar;   // the group's named barrier
  uint4* y;  // the group's attention output as A fragments [KT][32 lanes]
  uint4* u;  // the group's MLP hidden as A fragments [hidden / 16][32 lanes]

  __device__ void sync() const { asm volatile("bar.sync %0, %1;\n" ::"r"(bar), "r"(G * 32) : "memory"); }

  // The residual's columns of head c (n-tiles c HN ..) += o, stored back.
  __device__ void add_own(float (&o)[1][HN][4]) const {
    auto* p = reinterpret_cast<float4*>(t.hw) + lane_id();
#pragma unroll
    for (int i = 0; i < HN; ++i) {
      const float4 r = p[(c * HN + i) * 32];
      o[0][i][0] += r.x, o[0][i][1] += r.y, o[0][i][2] += r.z, o[0][i][3] += r.w;
      p[(c * HN + i) * 32] = make_float4(o[0][i][0], o[0][i][1], o[0][i][2], o[0][i][3]);
    }
  }

  __device__ void embed(const unsigned char* w) const {
    if (c == 0) t.embed(w);
  }

  __device__ void attention(const RtBlock& b, const unsigned char* w) const {
    uint32_t qp[1][HP][4], kp[1][HP][4], vt[1][HN][2];
    {
      uint32_t ap[1][KT][4];
      t.normed(ap, b.ln1);  // whole rows, every warp
      float acc[1][HN][4];
#pragma unroll 1
      for (int part = 0; part < 2; ++part) {  // q, then k: one copy of the product and RoPE
        bias_init(acc, t.f, b.qkv, part * D + c * HD);
        mma_rows<T, 1, KT, HP>(acc, ap, w + b.qkv.w, KT, part * NT / 2 + c * HP, 0);
        activate<T>(acc, b.qkv.act);
        rope_rows<1, HN, HD>(acc, t.f, b, t.pos);
        uint32_t pk[1][HP][4];
        pack_rows<T>(pk, acc);
#pragma unroll
        for (int kk = 0; kk < HP; ++kk)
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            if (part == 0)
              qp[0][kk][i] = pk[0][kk][i];
            else
              kp[0][kk][i] = pk[0][kk][i];
          }
      }
      bias_init(acc, t.f, b.qkv, 2 * D + c * HD);
      mma_rows<T, 1, KT, HP>(acc, ap, w + b.qkv.w, KT, NT + c * HP, 0);
      activate<T>(acc, b.qkv.act);
#pragma unroll
      for (int j = 0; j < HN; ++j) {
        vt[0][j][0] = dev::movmatrix_trans(dev::pack_pair<T>(acc[0][j][0], acc[0][j][1]));
        vt[0][j][1] = dev::movmatrix_trans(dev::pack_pair<T>(acc[0][j][2], acc[0][j][3]));
      }
    }
    uint32_t yh[HP][4];
    attend<T, HD, HD, 1>(yh, qp[0], kp, vt, t.allow[0], b.scale * 1.4426950408889634f);
#pragma unroll
    for (int kk = 0; kk < HP; ++kk)
      y[(c * HP + kk) * 32 + lane_id()] = make_uint4(yh[kk][0], yh[kk][1], yh[kk][2], yh[kk][3]);
    sync();  // every head's output is in the group's fragments; every warp has read the rows it normalized
    uint32_t yp[1][KT][4];
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
      const uint4 f = y[kk * 32 + lane_id()];
      yp[0][kk][0] = f.x, yp[0][kk][1] = f.y, yp[0][kk][2] = f.z, yp[0][kk][3] = f.w;
    }
    float o[1][HN][4];
    bias_init(o, t.f, b.proj, c * HD);
    mma_rows<T, 1, KT, HP>(o, yp, w + b.proj.w, KT, c * HP, 0);
    activate<T>(o, b.proj.act);
    add_own(o);
  }

  __device__ void mlp(const RtBlock& b, const unsigned char* w) const {
    const RtModel& m = t.m;
    const int kf = m.hidden / 16;
    {
      uint32_t ap[1][KT][4];
      t.normed(ap, b.ln2);
      for (int ch = c; ch < m.hidden / 32; ch += G) {
        float h[1][4][4];
        bias_init(h, t.f, b.fc1, 32 * ch);
        mma_rows<T, 1, KT, 2>(h, ap, w + b.fc1.w, KT, 2 * ch, 0);
        activate<T, true>(h, b.fc1.act);
        uint32_t hp[1][2][4];
        pack_rows<T>(hp, h);
#pragma unroll
        for (int kk = 0; kk < 2; ++kk)
          u[(2 * ch + kk) * 32 + lane_id()] = make_uint4(hp[0][kk][0], hp[0][kk][1], hp[0][kk][2], hp[0][kk][3]);
      }
    }
    sync();  // the whole hidden row is in the group's fragments; every warp has read the rows it normalized
    float o[1][HN][4];
    bias_init(o, t.f, b.fc2, c * HD);
#pragma unroll 2
    for (int kk0 = 0; kk0 < kf; kk0 += 2) {
      uint32_t hp[1][2][4];
#pragma unroll
      for (int kk = 0; kk < 2; ++kk) {
        const uint4 f = u[(kk0 + kk) * 32 + lane_id()];
        hp[0][kk][0] = f.x, hp[0][kk][1] = f.y, hp[0][kk][2] = f.z, hp[0][kk][3] = f.w;
      }
      mma_rows<T, 1, 2, HP>(o, hp, w + b.fc2.w, kf, c * HP, kk0);
    }
    activate<T>(o, b.fc2.act);
    add_own(o);
  }

  __device__ void flatten() const {
    if (c == 0) t.flatten();
  }

  __device__ void output(const unsigned char* w) const {
    if (c < t.m.slice / 16) t.output(w, c, G);  // the output Linear's 16-column groups round robin
  }
};

template <class T, int D, int HD, int kThreads>
__global__ void __launch_bounds__(kThreads, 1) row_heads_kernel(const __grid_constant__ Args a) {
  extern __shared__ __align__(128) unsigned char smem[];
  constexpr int G = D / HD;
  const RtModel& m = a.m;
  if (static_cast<int64_t>(blockIdx.x) * m.tile >= a.batch) return;
  float* fl = reinterpret_cast<float*>(smem + m.floats_smem);
  const int warp = threadIdx.x >> 5, grp = warp / G;
  float* hw = reinterpret_cast<float*>(smem + m.h_smem + grp * m.h_warp_bytes);
  Tile<T, D, HD, 1, true> t{a, m, smem, fl, hw, 0, grp * m.spw};
  t.init_rows();
  const HeadGroup<T, D, HD> hg{t, warp % G, 1 + grp, reinterpret_cast<uint4*>(smem + m.y_smem) + grp * (D / 16) * 32,
                               reinterpret_cast<uint4*>(smem + m.u_smem) + grp * (m.hidden / 16) * 32};
  run_tiles<T>(
      a, smem, fl, t.local0,
      [&](int64_t sample0) {
        t.sample0 = sample0;
        if (hg.c == 0) t.load_x();  // the group's first warp makes the embedding
      },
      [&](int kind, const RtBlock& b, const unsigned char* w) {
        if (kind == 0) hg.embed(w);
        if (kind == 1) hg.attention(b, w);
        if (kind == 2) hg.mlp(b, w);
        if (kind == 3) hg.flatten();
        if (kind == 5) hg.output(w);
      });
}

// The kernel compiled for a CTA shape of `warps` warps of `mt` tiles, `group` warps sharing each tile: one tile per
// warp in 384 or 512 threads, two in 256 (the launch bounds cap the registers at 65536 / threads; two tiles need
// all 255); shared tiles in up to 512 threads.
template <class T, int D, int HD>
void (*kernel_for(int warps, int mt, int group = 1))(Args) {
  if (group > 1) return row_heads_kernel<T, D, HD, 512>;
  if (mt == 2) return row_tile_kernel<T, D, HD, 2, 256>;
  return warps <= 12 ? row_tile_kernel<T, D, HD, 1, 384> : row_tile_kernel<T, D, HD, 1, 512>;
}

}  // namespace ie::sr::rt
