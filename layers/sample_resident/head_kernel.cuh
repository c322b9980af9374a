// The classifier head's kernel (head_builder.h: a product with an activation, a second product and a softmax over
// one row per sample; the conv net's fc3 -> ReLU -> fc4 -> softmax). Depends on CUDA alone, so
// tests/kernels/head_chain_lab.cu builds it with nvcc.
//
// A CTA per R samples, 16 warps:
//  - the first chunks of W1^T into registers and W2^T into shared memory, then the tile's input rows by 16-byte
//    loads (a float input rounded to the compute type), their latencies overlapping;
//  - the first product on the CUDA cores: a warp per two hidden units (round robin), its lanes across K eight
//    elements at a time, each 16-byte load of W1^T (straight from global memory: L2-resident, every CTA reads the
//    same bytes) used for all R samples; the lanes' sums added by xor shuffles in a fixed order (the same bits on
//    every run);
//  - bias and activation; the hidden rows stay in shared memory as floats;
//  - the second product and the softmax (classify_rows, shared with the MMA head): a warp per sample, or half a
//    warp for up to 16 classes, its lanes across the classes, W2^T from shared memory, written in the output's type
//    (the chain's float output: the precision pass's Cast is a view here).
// The engine runs this kernel for hidden sizes past the MMA head's 64 (head_mma.cuh, faster at every batch where it
// applies), up to 1024 samples. Why not the interpreting kernel: the products are 66 KFLOP per sample and the
// head's time at small batches is its chain of dependent steps.
// The interpreter (16-sample tiles, W^T staged through shared memory with a barrier per instruction) took 0.020 ms at
// batch 1 for the conv net's head alone (lab, H100), the per-step kernels' four launches about 9 us.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layers/common/activation_device.cuh"
#include "layers/common/float_device.cuh"
#include "layers/common/mma_sync.cuh"
#include "layers/sample_resident/head_builder.h"

namespace ie::sr::head {

constexpr int kThreads = 512;
constexpr int kRows = 8;  // samples per CTA (32 was slower at every batch: lab)

struct Args {
  HeadModel m;
  const void* weights = nullptr;  // W1^T, then W2^T at m.w2, in the compute type
  const float* floats = nullptr;  // the biases
  const void* x = nullptr;        // [batch, k] in the compute type or float32 (m.x_f32), 16-byte aligned
  void* y = nullptr;              // [batch, classes] in m.out
  int64_t batch = 0;
};

// acc += the dot product of 8 values of W and 8 of x (16 bytes each).
template <class T>
__device__ __forceinline__ float dot8(const uint4& w, const uint4& x, float acc) {
  const uint32_t wv[4] = {w.x, w.y, w.z, w.w}, xv[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 a = dev::unpack_pair<T>(wv[i]), b = dev::unpack_pair<T>(xv[i]);
    acc = fmaf(a.x, b.x, acc);
    acc = fmaf(a.y, b.y, acc);
  }
  return acc;
}

// Row `c` (8 values) of x as 16 bytes of T: a copy, or 8 floats rounded (a float input: the precision pass's Cast
// is a view of the chain).
template <class T>
__device__ __forceinline__ uint4 load_x8(const void* x, bool f32, int64_t chunk) {
  if (!f32) return __ldg(static_cast<const uint4*>(x) + chunk);
  const float4 lo = __ldg(static_cast<const float4*>(x) + 2 * chunk),
               hi = __ldg(static_cast<const float4*>(x) + 2 * chunk + 1);
  return make_uint4(dev::pack_pair<T>(lo.x, lo.y), dev::pack_pair<T>(lo.z, lo.w), dev::pack_pair<T>(hi.x, hi.y),
                    dev::pack_pair<T>(hi.z, hi.w));
}

// W2^T [C][H] into shared memory in whole 16-byte chunks (the builder pads it so), by all the CTA's threads.
template <class T>
__device__ __forceinline__ void stage_w2(const HeadModel& m, const void* weights, T* w2s) {
  const uint4* w2 = reinterpret_cast<const uint4*>(static_cast<const T*>(weights) + m.w2);
  for (int i = threadIdx.x; i < (m.classes * m.hidden + 7) / 8; i += blockDim.x)
    reinterpret_cast<uint4*>(w2s)[i] = __ldg(w2 + i);
}

// Lanes a sample takes in classify_rows: half a warp for up to 16 classes (two samples at once), else the warp.
__device__ __forceinline__ int classify_width(int classes) { return classes <= 16 ? 16 : 32; }

// The second product and the softmax of the tile's `rows` hidden rows (hs, floats [rows][H]): a warp (or half a
// warp, classify_width) per sample, its lanes across the classes, the hidden row read by all of them at once (a
// broadcast; 16-byte loads when H is a multiple of 4). Each lane keeps its own classes' logits in the sample's row
// of ls ([rows][C]), so no barrier stands between the product and the softmax. A NaN anywhere in a row makes the
// whole row NaN (its sum), as the per-step kernels do. b2_lane: the bias of the lane's first class (lane %
// classify_width), requested early by the caller.
template <class T>
__device__ __forceinline__ void classify_rows(const HeadModel& m, const float* hs, const T* w2s, float* ls,
                                              const float* b2, float b2_lane, void* y, int64_t s0, int rows, int warp,
                                              int nwarps, int lane) {
  const int H = m.hidden, C = m.classes, width = classify_width(C), per_warp = 32 / width;
  const int sub = lane & (width - 1);
  for (int r0 = warp * per_warp; r0 < rows; r0 += nwarps * per_warp) {
    const int r = r0 + lane / width;
    const bool live = r < rows;  // a dead half-warp still takes part in the shuffles (they stay inside the half)
    const float* hr = hs + r * H;
    float* lr = ls + r * C;
    float mx = -INFINITY;
    for (int c = sub; live && c < C; c += width) {
      const T* wr = w2s + c * H;
      // Two partial sums (even and odd hidden units) halve the chain of dependent multiply-adds.
      float s = c == sub ? b2_lane : __ldg(b2 + c), t = 0.f;
      int j = 0;
      if (H % 4 == 0) {
        for (; j < H; j += 4) {
          const float4 hv = *reinterpret_cast<const float4*>(hr + j);
          const uint2 wv = *reinterpret_cast<const uint2*>(wr + j);
          const float2 w01 = dev::unpack_pair<T>(wv.x), w23 = dev::unpack_pair<T>(wv.y);
          s = fmaf(hv.x, w01.x, s);
          t = fmaf(hv.y, w01.y, t);
          s = fmaf(hv.z, w23.x, s);
          t = fmaf(hv.w, w23.y, t);
        }
      } else {
        for (; j + 1 < H; j += 2) {
          s = fmaf(hr[j], dev::to_float(wr[j]), s);
          t = fmaf(hr[j + 1], dev::to_float(wr[j + 1]), t);
        }
        if (j < H) s = fmaf(hr[j], dev::to_float(wr[j]), s);
      }
      s += t;
      lr[c] = s;
      mx = fmaxf(mx, s);
    }
    for (int s = width / 2; s; s >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, s));
    float sum = 0.f;
    for (int c = sub; live && c < C; c += width) sum += __expf(lr[c] - mx);
    for (int s = width / 2; s; s >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, s);
    const float inv = 1.f / sum;
    const int64_t o = (s0 + r) * C;
    for (int c = sub; live && c < C; c += width) {
      const float p = __expf(lr[c] - mx) * inv;
      if (m.out == Elem::F32)
        static_cast<float*>(y)[o + c] = p;
      else
        static_cast<T*>(y)[o + c] = dev::from_float<T>(p);
    }
  }
}

template <class T, int R>
__global__ void __launch_bounds__(kThreads) head_kernel(Args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  const HeadModel& m = a.m;
  const int K = m.k, H = m.hidden, C = m.classes, kc = K / 8;
  const int64_t s0 = static_cast<int64_t>(blockIdx.x) * R;
  const int rows = static_cast<int>(min(static_cast<int64_t>(R), a.batch - s0));
  T* xs = reinterpret_cast<T*>(smem);                               // [R][K]
  T* w2s = xs + R * K;                                              // [C][H], 16-byte aligned (K % 8 == 0)
  float* hs = reinterpret_cast<float*>(w2s + (C * H + 7) / 8 * 8);  // [R][H]
  float* ls = hs + R * H;                                           // [R][C]
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, nwarps = blockDim.x >> 5;
  const T* w1 = static_cast<const T*>(a.weights);
  // Each warp takes hidden units h0 and h0 + nwarps together (two rows of W1^T in flight), the first kPre 16-byte
  // chunks of each row per lane requested at once; the first pair's before the input's copy, so that the two
  // latencies overlap.
  constexpr int kPre = 4;
  uint4 pa[kPre], pb[kPre];
  auto request = [&](int h0) {
    const int h1 = h0 + nwarps < H ? h0 + nwarps : h0;
    const uint4* r0 = reinterpret_cast<const uint4*>(w1 + static_cast<int64_t>(h0) * K);
    const uint4* r1 = reinterpret_cast<const uint4*>(w1 + static_cast<int64_t>(h1) * K);
#pragma unroll
    for (int i = 0; i < kPre; ++i) {
      const int c = lane + 32 * i;
      pa[i] = c < kc ? __ldg(r0 + c) : make_uint4(0u, 0u, 0u, 0u);
      pb[i] = c < kc ? __ldg(r1 + c) : make_uint4(0u, 0u, 0u, 0u);
    }
  };
  if (warp < H) request(warp);
  stage_w2(m, a.weights, w2s);
  {
    const void* x = static_cast<const unsigned char*>(a.x) + s0 * K * (m.x_f32 ? 4 : 2);
    uint4* dst = reinterpret_cast<uint4*>(xs);
    for (int i = tid; i < rows * kc; i += blockDim.x) dst[i] = load_x8<T>(x, m.x_f32, i);
  }
  // The second product's bias of the lane's first class, requested before the first product as well.
  const float* b2 = a.floats + m.b2;
  const int b2_class = lane & (classify_width(C) - 1);
  const float b2_lane = b2_class < C ? __ldg(b2 + b2_class) : 0.f;
  __syncthreads();
  const float* b1 = a.floats + m.b1;
  const auto act = static_cast<dev::Act>(m.act);
  for (int h0 = warp; h0 < H; h0 += 2 * nwarps) {
    const int h1 = h0 + nwarps;
    const bool two = h1 < H;
    if (h0 != warp) request(h0);
    // The biases now, so that their latency passes under the products (after the reduction they were most of the
    // stalls at batch 1).
    const float bias0 = lane == 0 ? __ldg(b1 + h0) : 0.f, bias1 = lane == 0 && two ? __ldg(b1 + h1) : 0.f;
    float acc0[R], acc1[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = 0.f;
    auto accumulate = [&](const uint4& wa, const uint4& wb, int c) {
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (r < rows) {
          const uint4 xv = reinterpret_cast<const uint4*>(xs + r * K)[c];
          acc0[r] = dot8<T>(wa, xv, acc0[r]);
          acc1[r] = dot8<T>(wb, xv, acc1[r]);
        }
    };
#pragma unroll
    for (int i = 0; i < kPre; ++i)
      if (lane + 32 * i < kc) accumulate(pa[i], pb[i], lane + 32 * i);
    const uint4* row0 = reinterpret_cast<const uint4*>(w1 + static_cast<int64_t>(h0) * K);
    const uint4* row1 = reinterpret_cast<const uint4*>(w1 + static_cast<int64_t>(two ? h1 : h0) * K);
#pragma unroll 2
    for (int c = lane + 32 * kPre; c < kc; c += 32) accumulate(__ldg(row0 + c), __ldg(row1 + c), c);
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (r < rows)  // the tile's rows only (the same for the whole CTA): at batch 1 the rest were a fifth of the work
#pragma unroll
        for (int s = 16; s; s >>= 1) {
          acc0[r] += __shfl_xor_sync(0xffffffffu, acc0[r], s);
          acc1[r] += __shfl_xor_sync(0xffffffffu, acc1[r], s);
        }
    if (lane == 0)
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (r < rows) {
          hs[r * H + h0] = dev::activate(act, acc0[r] + bias0);
          if (two) hs[r * H + h1] = dev::activate(act, acc1[r] + bias1);
        }
  }
  __syncthreads();
  classify_rows<T>(m, hs, w2s, ls, b2, b2_lane, a.y, s0, rows, warp, nwarps, lane);
}

}  // namespace ie::sr::head
