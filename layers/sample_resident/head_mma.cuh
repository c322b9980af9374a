// The classifier head on the Tensor Cores (head_builder.h's chain: a product with an activation, a second product
// and a softmax, one row per sample; the conv net's fc3 -> ReLU -> fc4 -> softmax) for hidden sizes up to 64, at
// every batch: the CUDA-core head kernel (head_kernel.cuh) spends ~2 instructions per multiply-add (slower from
// batch 1 on, 14x at 10000: lab), the per-step path four launches and three round trips through memory. Depends
// on CUDA alone (tests/kernels/head_chain_lab.cu builds it).
//
// A CTA per 16 x MT samples, kMmaWarps warps splitting K: the first product is m16n8k16 MMAs with the samples on M and
// the hidden units on N (NT n-tiles of 8). Neither operand goes through shared memory: since K is a sum, its order
// is free, and lane (g, q) reads 16 bytes at 8q of each 32-element chunk for both operands: the rows g and g + 8 of
// the input and rows 8j + g of W1^T ([hidden][K], L1/L2-resident: every CTA reads the same bytes). Those 8 elements
// are the lane's A (and B) registers of the chunk's two k-steps: pairs 0 and 1 for the first (columns 2q and
// 2q + 8 in the fragment's terms), 2 and 3 for the second. The warps' partial sums meet in shared memory in a fixed
// order (the same bits every run), then bias (staged in the prologue: after the barrier its global load was on the
// critical path) and activation give the hidden rows as floats, and the second product with the softmax is the
// CUDA-core head's (classify_rows).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layers/sample_resident/head_kernel.cuh"

namespace ie::sr::head {

constexpr int kMmaWarps = 8;
constexpr int kMmaMaxHidden = 64;  // NT <= 8 n-tiles: the accumulators stay in registers

// n-tiles of 8 hidden units the kernel is compiled for (head_mma_kernel_for): 2, 4 or 8.
__host__ __device__ inline int head_mma_ntiles(int hidden) { return hidden <= 16 ? 2 : hidden <= 32 ? 4 : 8; }

// Shared memory of the MMA head for MT m-tiles a CTA: W2^T, the warps' partial sums, the hidden rows, the logits,
// the first product's bias.
__host__ __device__ inline int head_mma_smem_bytes(const HeadModel& m, int mt) {
  const int rows = 16 * mt, h8 = 8 * head_mma_ntiles(m.hidden);
  return (m.classes * m.hidden + 7) / 8 * 16 +
         (kMmaWarps * rows * h8 + rows * m.hidden + rows * m.classes + m.hidden) * 4;
}

// 8 values of input row `s` at element k0 (zeros past the batch) as 16 bytes of T; a float input rounded.
template <class T>
__device__ __forceinline__ uint4 load_row8(const Args& a, int64_t s, int k0) {
  if (s >= a.batch) return make_uint4(0u, 0u, 0u, 0u);
  return load_x8<T>(a.x, a.m.x_f32, (s * a.m.k + k0) / 8);
}

// G: chunks whose loads are in flight together (registers: G x (2 MT + NT) x 4 for them).
template <class T, int NT, int MT, int G>
__global__ void __launch_bounds__(kMmaWarps * 32) head_mma_kernel(Args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  const HeadModel& m = a.m;
  const int K = m.k, H = m.hidden, C = m.classes;
  constexpr int kRowsCta = 16 * MT, kH8 = NT * 8;
  const int64_t s0 = static_cast<int64_t>(blockIdx.x) * kRowsCta;
  const int rows = static_cast<int>(min(static_cast<int64_t>(kRowsCta), a.batch - s0));
  T* w2s = reinterpret_cast<T*>(smem);                                // [C][H]
  float* part = reinterpret_cast<float*>(w2s + (C * H + 7) / 8 * 8);  // [kMmaWarps][kRowsCta][kH8]
  float* hs = part + kMmaWarps * kRowsCta * kH8;                      // [kRowsCta][H]
  float* ls = hs + kRowsCta * H;                                      // [kRowsCta][C]
  float* b1s = ls + kRowsCta * C;                                     // [H]
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, q = lane & 3;
  const T* w1 = static_cast<const T*>(a.weights);
  stage_w2(m, a.weights, w2s);
  const float* b2 = a.floats + m.b2;
  const int b2_class = lane & (classify_width(C) - 1);
  const float b2_lane = b2_class < C ? __ldg(b2 + b2_class) : 0.f;
  for (int i = tid; i < H; i += kMmaWarps * 32) b1s[i] = __ldg(a.floats + m.b1 + i);  // read after a barrier

  // The warp's chunks of 32 elements of K; a chunk's last lanes read zeros past K (K is a multiple of 8).
  const int chunks = (K + 31) / 32, per = (chunks + kMmaWarps - 1) / kMmaWarps;
  const int c0 = warp * per, c1 = min(chunks, c0 + per);
  float acc[MT][NT][4] = {};
  for (int cb = c0; cb < c1; cb += G) {
    uint4 xa[G][MT][2], wb[G][NT];
#pragma unroll
    for (int u = 0; u < G; ++u) {
      const int k0 = (cb + u) * 32 + 8 * q;
      const bool in = cb + u < c1 && k0 < K;
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          xa[u][i][h] = in ? load_row8<T>(a, s0 + 16 * i + 8 * h + g, k0) : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        const int n = 8 * j + g;
        wb[u][j] = in && n < H ? __ldg(reinterpret_cast<const uint4*>(w1 + static_cast<int64_t>(n) * K + k0))
                               : make_uint4(0u, 0u, 0u, 0u);
      }
    }
#pragma unroll
    for (int u = 0; u < G; ++u)
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        const uint32_t ka[4] = {xa[u][i][0].x, xa[u][i][1].x, xa[u][i][0].y, xa[u][i][1].y};
        const uint32_t kb[4] = {xa[u][i][0].z, xa[u][i][1].z, xa[u][i][0].w, xa[u][i][1].w};
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          dev::mma_16816<T>(acc[i][j], ka, wb[u][j].x, wb[u][j].y);
          dev::mma_16816<T>(acc[i][j], kb, wb[u][j].z, wb[u][j].w);
        }
      }
  }
  // Every warp writes its partial sums (zeros when it had no chunk), then they are added in warp order.
  float* pw = part + warp * kRowsCta * kH8;
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      const int col = 8 * j + 2 * q;
      *reinterpret_cast<float2*>(pw + (16 * i + g) * kH8 + col) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2*>(pw + (16 * i + g + 8) * kH8 + col) = make_float2(acc[i][j][2], acc[i][j][3]);
    }
  __syncthreads();
  const auto act = static_cast<dev::Act>(m.act);
  for (int idx = tid; idx < rows * H; idx += kMmaWarps * 32) {
    const int r = idx / H, col = idx - r * H;
    float s = 0.f;
#pragma unroll
    for (int w = 0; w < kMmaWarps; ++w) s += part[(w * kRowsCta + r) * kH8 + col];
    hs[idx] = dev::activate(act, s + b1s[col]);
  }
  __syncthreads();
  classify_rows<T>(m, hs, w2s, ls, b2, b2_lane, a.y, s0, rows, warp, kMmaWarps, lane);
}

using HeadMmaFn = void (*)(Args);

// The kernel for a hidden size (NT = 2, 4 or 8 n-tiles) and MT m-tiles a CTA, G chunks in flight; nullptr past
// kMmaMaxHidden.
template <class T, int MT, int G>
HeadMmaFn head_mma_kernel_for(int hidden) {
  if (hidden > kMmaMaxHidden) return nullptr;
  switch (head_mma_ntiles(hidden)) {
    case 2:
      return head_mma_kernel<T, 2, MT, G>;
    case 4:
      return head_mma_kernel<T, 4, MT, G>;
    default:
      return head_mma_kernel<T, 8, MT, G>;
  }
}

}  // namespace ie::sr::head
