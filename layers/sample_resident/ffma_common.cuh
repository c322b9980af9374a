// What the two strict-fp32 whole-model kernels (row_ffma.cuh: a tile in shared memory; row_lane.cuh: a row per
// lane) share: their parameters, the weight stream (two shared-memory slots filled by bulk copies one chunk ahead,
// each completed on its slot's mbarrier), the flattening encoder and the decoder (CTA-wide products between a
// sample's rows and its latent).
// Depends on CUDA alone.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layers/common/bulk_copy.cuh"

namespace ie::sr::ffma {

// A kernel's parameters: its layout (RfLayout or RlLayout), the blobs and the tensors.
template <class Layout>
struct Args {
  Layout l;
  const float* weights = nullptr;  // each Linear's W [k][n] (in the layout's order)
  const float* floats = nullptr;   // biases, LayerNorm parameters, RoPE tables
  const float* x = nullptr;        // [batch][seq][slice]
  float* recon = nullptr;          // [batch][seq][slice]
  float* latent = nullptr;         // [batch][latent]
  int64_t batch = 0;
};

// RtModel::skip bits for the labs' attribution (the results are then wrong): the work of a stage is left out, its
// barriers and weight chunks still run.
namespace skip {
constexpr int kSkipEmbed = 1, kSkipAttention = 2, kSkipMlp = 4, kSkipEncoder = 8, kSkipDecoder = 16, kSkipOutput = 32,
              kSkipNorms = 64, kSkipAttentionCore = 128;
}

// A layout's slots (its slots_smem, slot_floats and bars_smem) as the bulk-copy stream's (layers/common/
// bulk_copy.cuh).
template <class Layout>
__device__ __forceinline__ dev::Slots slots_of(const Layout& l, float* sm) {
  return {reinterpret_cast<unsigned char*>(sm + l.slots_smem), l.slot_floats * 4,
          reinterpret_cast<uint64_t*>(sm + l.bars_smem)};
}

// Waits for the chunk issued last, makes it (and every shared write before) visible, issues the next by
// issue_next() into the other slot (free: every thread is past its reads), and returns the waited chunk.
template <class Layout, class Issue>
__device__ __forceinline__ const float* next_chunk(const Layout& l, float* sm, dev::WeightStream& s, Issue issue_next) {
  const int slot = dev::slots_wait(slots_of(l, sm), s);
  __syncthreads();
  issue_next();
  return sm + l.slots_smem + slot * l.slot_floats;
}

// latent[s][n] = sum_k flat[s][k] Wenc[k][n] + bias[n] for the tile's samples, flat index k = pos x width + c read
// through at(sample, pos, c); Wenc's rows arrive in chunks of kc (next_chunk() waits for one, publishes the shared
// writes before it and returns it). Each thread sums 4 columns of two samples over every ks-th row of a chunk; the
// partial sums meet in `partial` (ks x tile x n floats), the sums in z (z_stride floats a sample) and latent_out.
template <class At, class NextChunk>
__device__ __forceinline__ void encode(int tile, int seq, int width, int n, int kc, At at, NextChunk next_chunk,
                                       bool skip, float* partial, float* z, int z_stride, const float* bias,
                                       float* __restrict__ latent_out, int64_t sample0, int64_t valid) {
  const int k_all = seq * width, groups = n / 4, pairs = (tile + 1) / 2, items = pairs * groups;
  const int ks = max(1, static_cast<int>(blockDim.x) / items);
  const int item = threadIdx.x % items, slice = threadIdx.x / items;
  const bool busy = slice < ks && !skip;
  const int smp = (item / groups) * 2, col = (item % groups) * 4;
  const int smp1 = min(smp + 1, tile - 1);  // an odd tile's last pair has one sample
  float acc[2][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 0.f}};
  for (int k0 = 0; k0 < k_all; k0 += kc) {
    const float* wc = next_chunk();
    const int rows = min(kc, k_all - k0);
    if (!busy) continue;
    int pos = (k0 + slice) / width, c = (k0 + slice) - pos * width;  // of row k0 + kk, kept by steps of ks
    for (int kk = slice; kk < rows; kk += ks) {
      const float a0 = at(smp, pos, c), a1 = at(smp1, pos, c);
      for (c += ks; c >= width; c -= width) ++pos;
      const float4 b = *reinterpret_cast<const float4*>(wc + kk * n + col);
      acc[0][0] = fmaf(a0, b.x, acc[0][0]), acc[0][1] = fmaf(a0, b.y, acc[0][1]);
      acc[0][2] = fmaf(a0, b.z, acc[0][2]), acc[0][3] = fmaf(a0, b.w, acc[0][3]);
      acc[1][0] = fmaf(a1, b.x, acc[1][0]), acc[1][1] = fmaf(a1, b.y, acc[1][1]);
      acc[1][2] = fmaf(a1, b.z, acc[1][2]), acc[1][3] = fmaf(a1, b.w, acc[1][3]);
    }
  }
  if (busy) {
    *reinterpret_cast<float4*>(partial + (slice * tile + smp) * n + col) =
        make_float4(acc[0][0], acc[0][1], acc[0][2], acc[0][3]);
    if (smp1 != smp)
      *reinterpret_cast<float4*>(partial + (slice * tile + smp1) * n + col) =
          make_float4(acc[1][0], acc[1][1], acc[1][2], acc[1][3]);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < tile * n; i += blockDim.x) {
    const int si = i / n, j = i - si * n;
    float v = bias[j];
    for (int p = 0; p < ks; ++p) v += partial[(p * tile + si) * n + j];
    z[si * z_stride + j] = v;
    if (si < valid) latent_out[(sample0 + si) * n + j] = v;
  }
}

// out = z Wdec + bias over the tile's samples: 4 columns j..j+3 (j = pos x width + c) of sample s go to
// store(s, pos, c, value) as a float4; Wdec [k][seq x width] arrives in chunks of kc rows by next_chunk(). Samples
// vary fastest over the threads (z's stride is odd: no bank conflicts), MAXD items of 4 columns at most per thread.
template <int MAXD, class NextChunk, class Store>
__device__ __forceinline__ void decode(int tile, int seq, int width, int k, int kc, const float* z, int z_stride,
                                       NextChunk next_chunk, bool skip, const float* bias, Store store) {
  const int n = seq * width, items = skip ? 0 : tile * (n / 4);
  float acc[MAXD][4];
#pragma unroll
  for (int i = 0; i < MAXD; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
  for (int k0 = 0; k0 < k; k0 += kc) {
    const float* wc = next_chunk();
    const int rows = min(kc, k - k0);
#pragma unroll
    for (int i = 0; i < MAXD; ++i) {
      const int it = threadIdx.x + i * blockDim.x;
      if (it >= items) break;
      const int smp = it % tile, col = (it / tile) * 4;
      const float* zp = z + smp * z_stride + k0;
      for (int kk = 0; kk < rows; ++kk) {
        const float a = zp[kk];
        const float4 b = *reinterpret_cast<const float4*>(wc + kk * n + col);
        acc[i][0] = fmaf(a, b.x, acc[i][0]), acc[i][1] = fmaf(a, b.y, acc[i][1]);
        acc[i][2] = fmaf(a, b.z, acc[i][2]), acc[i][3] = fmaf(a, b.w, acc[i][3]);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < MAXD; ++i) {
    const int it = threadIdx.x + i * blockDim.x;
    if (it >= items) break;
    const int smp = it % tile, j = (it / tile) * 4;
    const int pos = j / width, c = j - pos * width;
    store(smp, pos, c,
          make_float4(acc[i][0] + bias[j], acc[i][1] + bias[j + 1], acc[i][2] + bias[j + 2], acc[i][3] + bias[j + 3]));
  }
}

}  // namespace ie::sr::ffma
