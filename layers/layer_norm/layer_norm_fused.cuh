// The fused kernel set's row normalization: LayerNormalization, and ie.LayerNorm (LayerNorm, then an activation
// such as GELU in the same pass: one read and one write of the row). Depends on CUDA alone, so that
// tests/kernels/layer_norm_lab.cu builds it with nvcc.
//
// Three kernels, chosen by row length n and the pack P = 16 bytes (4 floats, 8 halves or bfloat16):
//  - group: n a multiple of P and n <= 256 P (1024 floats, 2048 halves). A group of G = 4..32 lanes per row (a
//    warp holds 32/G rows), each lane keeping ITERS packs in registers. Short rows (the SSA's 64) thus fill the
//    warp with 16-byte loads instead of leaving lanes idle; statistics by xor shuffles inside the group.
//    The streaming form (layer_norm_group_stream_kernel; 16-bit rows, and float rows up to two waves): a grid of at
//    most one wave of resident CTAs, each group walking its rows with the next row's loads issued before this row's
//    math and stores, the lane's scale and bias packs (the same for every row) loaded once with the first row.
//  - block: n a multiple of P up to 8192 P. One CTA of THREADS per row, the row in registers (ITERS packs per
//    thread), block sums through shared memory.
//  - generic: any other n or alignment; one CTA per row, three passes over global memory (the row is then read
//    from L1/L2 on the second and third pass).
// Statistics are float whatever the element type, in two passes over the values held (mean, then the mean of
// squared deviations): no cancellation when |mean| >> stddev. inv = 1 / sqrt(var + eps), as on the CPU.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "layers/common/activation_device.cuh"
#include "layers/common/float_device.cuh"
#include "layers/common/launch_limits.cuh"

namespace ie::ln {

using dev::Act;

struct Params {
  const void* x = nullptr;      // rows x n, T
  const void* scale = nullptr;  // n, T
  const void* bias = nullptr;   // n, T, or null
  void* y = nullptr;            // rows x n, T
  float* mean = nullptr;        // rows, optional
  float* inv_std = nullptr;     // rows, optional
  int64_t rows = 0;
  int n = 0;
  float eps = 1e-5f;
  Act act = Act::None;
};

using dev::from_float;
using dev::to_float;

template <class T>
struct alignas(16) Pack16 {
  static constexpr int kN = 16 / sizeof(T);
  T v[kN];
};

template <class T>
constexpr int pack_elems() {
  return 16 / static_cast<int>(sizeof(T));
}

// Sum over the G lanes of an aligned group (G a power of two <= 32); every lane gets the total.
template <int G>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int o = G / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sum over the CTA; `red` holds 32 floats. Ends with a barrier so that `red` may be reused at once.
__device__ __forceinline__ float cta_sum(float v, float* red) {
  v = group_sum<32>(v);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) red[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) >> 5;
  v = lane < warps ? red[lane] : 0.f;
  v = group_sum<32>(v);
  __syncthreads();
  return v;
}

// The scale's or bias's pack at element `elem` as raw bits (zeros for a null bias).
template <class T>
__device__ __forceinline__ uint4 param_pack(const void* param, int elem) {
  return param ? __ldg(reinterpret_cast<const uint4*>(static_cast<const T*>(param) + elem)) : uint4{};
}

// y = act((x - mean) * inv * scale + bias) for one pack, scale and bias given as raw packs.
template <class T>
__device__ __forceinline__ void write_pack(const Params& p, const float (&v)[Pack16<T>::kN], float mean, float inv,
                                           const uint4& scale, const uint4& bias, int elem, T* yr) {
  constexpr int V = Pack16<T>::kN;
  const Pack16<T> s = *reinterpret_cast<const Pack16<T>*>(&scale), b = *reinterpret_cast<const Pack16<T>*>(&bias);
  float r[V];
#pragma unroll
  for (int k = 0; k < V; ++k) r[k] = fmaf((v[k] - mean) * inv, to_float(s.v[k]), to_float(b.v[k]));
  dev::activate_all<V>(p.act, r);
  Pack16<T> o;
#pragma unroll
  for (int k = 0; k < V; ++k) o.v[k] = from_float<T>(r[k]);
  *reinterpret_cast<Pack16<T>*>(yr + elem) = o;
}

// The same, loading the scale and bias packs (from L1 after the first row).
template <class T>
__device__ __forceinline__ void write_pack(const Params& p, const float (&v)[Pack16<T>::kN], float mean, float inv,
                                           int elem, T* yr) {
  const uint4 s = __ldg(reinterpret_cast<const uint4*>(static_cast<const T*>(p.scale) + elem));
  uint4 b{};
  if (p.bias) b = __ldg(reinterpret_cast<const uint4*>(static_cast<const T*>(p.bias) + elem));
  write_pack<T>(p, v, mean, inv, s, b, elem, yr);
}

constexpr int kGroupThreads = 128;

// A group kernel thread's view of its rows: lane g of a group of G holds packs it * G + g of each row.
template <class T, int G>
struct GroupLane {
  static constexpr int V = Pack16<T>::kN;
  static constexpr int kRowsPerCta = kGroupThreads / G;
  int g, npack;
  float inv_n;
  __device__ explicit GroupLane(const Params& p)
      : g(static_cast<int>(threadIdx.x) & (G - 1)), npack(p.n / V), inv_n(1.f / static_cast<float>(p.n)) {}
  __device__ bool holds(int it) const { return it * G + g < npack; }
  // The row's mean and 1 / sqrt(var + eps) over the group, from the lane's values and their sum (two passes over
  // registers); `live` false: a group past the last row, which still joins the shuffles.
  template <int ITERS>
  __device__ float2 stats(const float (&v)[ITERS][V], float sum, bool live, float eps) const {
    const float mean = group_sum<G>(sum) * inv_n;
    float sq = 0.f;
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      if (live && holds(it)) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const float d = v[it][k] - mean;
          sq += d * d;
        }
      }
    }
    return make_float2(mean, rsqrtf(group_sum<G>(sq) * inv_n + eps));
  }
};

template <class T>
__device__ __forceinline__ void load_pack(const T* xr, int elem, float (&v)[Pack16<T>::kN]) {
  Pack16<T> in;
  *reinterpret_cast<uint4*>(&in) = __ldg(reinterpret_cast<const uint4*>(xr + elem));
#pragma unroll
  for (int k = 0; k < Pack16<T>::kN; ++k) v[k] = to_float(in.v[k]);
}

// The lane's packs of row `row` as raw bits (zeros past the row or the rows): the streaming kernel's loads.
template <class T, int G, int ITERS>
__device__ __forceinline__ void request_row(const Params& p, const GroupLane<T, G>& L, int64_t row,
                                            uint4 (&raw)[ITERS]) {
  const T* xr = static_cast<const T*>(p.x) + row * p.n;
#pragma unroll
  for (int it = 0; it < ITERS; ++it)
    raw[it] = row < p.rows && L.holds(it)
                  ? __ldg(reinterpret_cast<const uint4*>(xr + (it * G + L.g) * GroupLane<T, G>::V))
                  : uint4{};
}

// Rows of n = npack packs, G lanes per row; lane g of a group holds packs it * G + g.
template <class T, int G, int ITERS>
__global__ void __launch_bounds__(kGroupThreads) layer_norm_group_kernel(Params p) {
  using Lane = GroupLane<T, G>;
  constexpr int V = Lane::V;
  const Lane L(p);
  const T* x = static_cast<const T*>(p.x);
  T* y = static_cast<T*>(p.y);
  // Warp-uniform trip count: a group past the last row still joins the shuffles.
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * Lane::kRowsPerCta; base < p.rows;
       base += static_cast<int64_t>(gridDim.x) * Lane::kRowsPerCta) {
    const int64_t row = base + threadIdx.x / G;
    const bool live = row < p.rows;
    const T* xr = x + row * p.n;
    float v[ITERS][V];
    float sum = 0.f;
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      if (live && L.holds(it)) {
        load_pack(xr, (it * G + L.g) * V, v[it]);
#pragma unroll
        for (int k = 0; k < V; ++k) sum += v[it][k];
      }
    }
    const float2 st = L.stats(v, sum, live, p.eps);
    if (!live) continue;
    T* yr = y + row * p.n;
#pragma unroll
    for (int it = 0; it < ITERS; ++it)
      if (L.holds(it)) write_pack<T>(p, v[it], st.x, st.y, (it * G + L.g) * V, yr);
    if (L.g == 0) {
      if (p.mean) p.mean[row] = st.x;
      if (p.inv_std) p.inv_std[row] = st.y;
    }
  }
}

// The group kernel for more rows than one wave of resident CTAs holds: each group walks rows base, base + stride,
// ... with the next row's ITERS packs requested before this row's statistics, activation and stores, so that the
// loads of one row overlap the math of the last (the plain kernel's CTAs load, compute and store once each, in
// step with the rest of their wave). Scale and bias packs stay in registers for the whole kernel.
template <class T, int G, int ITERS>
__global__ void __launch_bounds__(kGroupThreads) layer_norm_group_stream_kernel(Params p) {
  using Lane = GroupLane<T, G>;
  constexpr int V = Lane::V;
  const Lane L(p);
  T* y = static_cast<T*>(p.y);
  uint4 sc[ITERS], bi[ITERS];
#pragma unroll
  for (int it = 0; it < ITERS; ++it) {
    const bool in = L.holds(it);
    sc[it] = in ? param_pack<T>(p.scale, (it * G + L.g) * V) : uint4{};
    bi[it] = in ? param_pack<T>(p.bias, (it * G + L.g) * V) : uint4{};
  }
  const int64_t stride = static_cast<int64_t>(gridDim.x) * Lane::kRowsPerCta;
  int64_t row = static_cast<int64_t>(blockIdx.x) * Lane::kRowsPerCta + threadIdx.x / G;
  uint4 cur[ITERS];
  request_row<T, G, ITERS>(p, L, row, cur);
  // Warp-uniform trip count (the CTA's first row decides): a group past the last row still joins the shuffles.
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * Lane::kRowsPerCta; base < p.rows;
       base += stride, row += stride) {
    uint4 nxt[ITERS];
    request_row<T, G, ITERS>(p, L, row + stride, nxt);
    const bool live = row < p.rows;
    float v[ITERS][V];
    float sum = 0.f;
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      const Pack16<T> in = *reinterpret_cast<const Pack16<T>*>(&cur[it]);
#pragma unroll
      for (int k = 0; k < V; ++k) {
        v[it][k] = to_float(in.v[k]);
        sum += v[it][k];  // packs past the row are zeros
      }
    }
    const float2 st = L.stats(v, sum, live, p.eps);
    if (live) {
      T* yr = y + row * p.n;
#pragma unroll
      for (int it = 0; it < ITERS; ++it) {
        if (!L.holds(it)) continue;
        const int elem = (it * G + L.g) * V;
        write_pack<T>(p, v[it], st.x, st.y, sc[it], bi[it], elem, yr);
      }
      if (L.g == 0) {
        if (p.mean) p.mean[row] = st.x;
        if (p.inv_std) p.inv_std[row] = st.y;
      }
    }
#pragma unroll
    for (int it = 0; it < ITERS; ++it) cur[it] = nxt[it];
  }
}

// One CTA per row, the row in registers: thread t holds packs it * THREADS + t.
template <class T, int THREADS, int ITERS>
__global__ void __launch_bounds__(THREADS) layer_norm_block_kernel(Params p) {
  constexpr int V = Pack16<T>::kN;
  __shared__ float red[32];
  const int npack = p.n / V;
  const float inv_n = 1.f / static_cast<float>(p.n);
  for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    const T* xr = static_cast<const T*>(p.x) + row * p.n;
    float v[ITERS][V];
    float sum = 0.f;
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      const int pk = it * THREADS + threadIdx.x;
      if (pk < npack) {
        load_pack(xr, pk * V, v[it]);
#pragma unroll
        for (int k = 0; k < V; ++k) sum += v[it][k];
      }
    }
    const float mean = cta_sum(sum, red) * inv_n;
    float sq = 0.f;
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      if (it * THREADS + static_cast<int>(threadIdx.x) < npack) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const float d = v[it][k] - mean;
          sq += d * d;
        }
      }
    }
    const float inv = rsqrtf(cta_sum(sq, red) * inv_n + p.eps);
    T* yr = static_cast<T*>(p.y) + row * p.n;
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      const int pk = it * THREADS + threadIdx.x;
      if (pk < npack) write_pack<T>(p, v[it], mean, inv, pk * V, yr);
    }
    if (threadIdx.x == 0) {
      if (p.mean) p.mean[row] = mean;
      if (p.inv_std) p.inv_std[row] = inv;
    }
  }
}

constexpr int kGenericThreads = 256;

// Any n and alignment: one CTA per row, element by element, three passes over the row.
template <class T>
__global__ void __launch_bounds__(kGenericThreads) layer_norm_generic_kernel(Params p) {
  __shared__ float red[32];
  const float inv_n = 1.f / static_cast<float>(p.n);
  const T* scale = static_cast<const T*>(p.scale);
  const T* bias = static_cast<const T*>(p.bias);
  for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    const T* xr = static_cast<const T*>(p.x) + row * p.n;
    float sum = 0.f;
    for (int i = threadIdx.x; i < p.n; i += kGenericThreads) sum += to_float(xr[i]);
    const float mean = cta_sum(sum, red) * inv_n;
    float sq = 0.f;
    for (int i = threadIdx.x; i < p.n; i += kGenericThreads) {
      const float d = to_float(xr[i]) - mean;
      sq += d * d;
    }
    const float inv = rsqrtf(cta_sum(sq, red) * inv_n + p.eps);
    T* yr = static_cast<T*>(p.y) + row * p.n;
    for (int i = threadIdx.x; i < p.n; i += kGenericThreads) {
      float r = (to_float(xr[i]) - mean) * inv * to_float(scale[i]);
      if (bias) r += to_float(bias[i]);
      yr[i] = from_float<T>(dev::activate(p.act, r));
    }
    if (threadIdx.x == 0) {
      if (p.mean) p.mean[row] = mean;
      if (p.inv_std) p.inv_std[row] = inv;
    }
  }
}

// Which kernel and shape a row length gets.
struct Choice {
  enum Kind { kGroup, kBlock, kGeneric } kind = kGeneric;
  int lanes = 0;  // G (group) or THREADS (block)
  int iters = 0;  // packs per lane (after rounding up to an instantiated count)
  // group: -1 streams by the measured rule in launch_group_iters, 0 never, 1 always (the lab's A/B); grid: the
  // streaming grid's CTAs (0: one wave).
  int stream = -1, grid = 0;
};

constexpr int kMaxGroupIters = 8;
constexpr int kMaxBlockIters = 8;

inline bool aligned16(const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; }

// The smallest instantiated iteration count >= `iters` (group kernels: 1-6, 8; block kernels: 1, 2, 4, 8).
inline int group_iters(int iters) { return iters == 7 ? 8 : iters; }
inline int block_iters(int iters) { return iters <= 2 ? iters : iters <= 4 ? 4 : 8; }

// Least padding (lanes x iterations - packs) first. Ties: group kernels prefer 2 to 4 packs per lane, the more the
// better (lab, H200, fp32 262144 x 64 + GELU: G4 x4 0.0384 ms, G8 x2 0.0400, G16 x1 0.0433; at 655360 rows 0.0864,
// 0.0915, 0.0996); block kernels prefer 4
// packs per thread (16384 x 4096: T256 x4 0.165 ms, T512 x2 0.194, T1024 x1 0.267).
inline Choice choose(int n, int elem_bytes, bool aligned) {
  Choice c;
  const int v = 16 / elem_bytes;
  if (!aligned || n <= 0 || n % v != 0) return c;
  const int packs = n / v;
  int best_waste = 1 << 30;
  if (packs <= 32 * kMaxGroupIters) {
    bool best_mid = false;
    for (int g = 32; g >= 4; g /= 2) {
      const int iters = group_iters((packs + g - 1) / g);
      if (iters > kMaxGroupIters) continue;
      const int waste = g * iters - packs;
      const bool mid = iters >= 2 && iters <= 4;
      if (waste < best_waste || (waste == best_waste && mid && (!best_mid || iters > c.iters)))
        best_waste = waste, best_mid = mid, c = Choice{Choice::kGroup, g, iters};
    }
    return c;
  }
  int best_pref = 0;
  for (int threads : {256, 512, 128, 1024}) {
    const int iters = block_iters((packs + threads - 1) / threads);
    if ((packs + threads - 1) / threads > kMaxBlockIters) continue;
    const int waste = threads * iters - packs;
    const int pref = iters == 4 ? 3 : iters == 2 ? 2 : iters == 8 ? 1 : 0;
    if (waste < best_waste || (waste == best_waste && pref > best_pref))
      best_waste = waste, best_pref = pref, c = Choice{Choice::kBlock, threads, iters};
  }
  return c;
}

inline unsigned grid_of(int64_t units) {
  const int64_t kMax = int64_t{1} << 20;  // a grid-stride loop covers the rest
  return static_cast<unsigned>(units < 1 ? 1 : units < kMax ? units : kMax);
}

template <class T, int G, int ITERS>
cudaError_t launch_group_iters(const Params& p, const Choice& c, cudaStream_t s) {
  const int64_t ctas = (p.rows + kGroupThreads / G - 1) / (kGroupThreads / G);
  if (c.stream != 0) {
    const auto kernel = layer_norm_group_stream_kernel<T, G, ITERS>;
    dev::DeviceLimits d;
    int per_sm = 0;
    cudaError_t err = dev::device_limits(&d);
    if (err == cudaSuccess) err = dev::resident_blocks(kernel, kGroupThreads, 0, d.smem_optin, &per_sm);
    if (err != cudaSuccess) return err;
    const int64_t wave = static_cast<int64_t>(d.sms) * (per_sm > 0 ? per_sm : 1);
    // Measured (lab, H200, tools/results/h200/layer_norm_stream/): 16-bit rows gain from the stream at every row
    // count tried (the scale and bias loads leave the chain of dependent loads, the next row's loads overlap the
    // activation: bf16 + GELU 262144 x 64 0.0330 -> 0.0289 ms, 1048576 x 320 0.462 -> 0.436); float rows gain up
    // to two waves (40960 x 64: 0.0097 -> 0.0078) and lose from about twelve (262144 x 64 + GELU 0.0383 -> 0.0395,
    // 1048576 x 320 0.643 -> 0.690: 91 registers against 64), so they stream up to two waves.
    if (c.stream > 0 || sizeof(T) == 2 || ctas <= 2 * wave) {
      const int64_t grid = c.grid > 0 ? c.grid : wave;
      kernel<<<static_cast<unsigned>(ctas < grid ? ctas : grid), kGroupThreads, 0, s>>>(p);
      return cudaGetLastError();
    }
  }
  layer_norm_group_kernel<T, G, ITERS><<<grid_of(ctas), kGroupThreads, 0, s>>>(p);
  return cudaGetLastError();
}

template <class T, int G>
cudaError_t launch_group(const Params& p, const Choice& c, cudaStream_t s) {
  switch (c.iters) {
    case 1:
      return launch_group_iters<T, G, 1>(p, c, s);
    case 2:
      return launch_group_iters<T, G, 2>(p, c, s);
    case 3:
      return launch_group_iters<T, G, 3>(p, c, s);
    case 4:
      return launch_group_iters<T, G, 4>(p, c, s);
    case 5:
      return launch_group_iters<T, G, 5>(p, c, s);
    case 6:
      return launch_group_iters<T, G, 6>(p, c, s);
    default:
      return launch_group_iters<T, G, 8>(p, c, s);
  }
}

template <class T, int THREADS>
cudaError_t launch_block(const Params& p, int iters, cudaStream_t s) {
  const unsigned grid = grid_of(p.rows);
  switch (iters) {
    case 1:
      layer_norm_block_kernel<T, THREADS, 1><<<grid, THREADS, 0, s>>>(p);
      break;
    case 2:
      layer_norm_block_kernel<T, THREADS, 2><<<grid, THREADS, 0, s>>>(p);
      break;
    case 4:
      layer_norm_block_kernel<T, THREADS, 4><<<grid, THREADS, 0, s>>>(p);
      break;
    default:
      layer_norm_block_kernel<T, THREADS, 8><<<grid, THREADS, 0, s>>>(p);
      break;
  }
  return cudaGetLastError();
}

/// Launches `c` (from choose()); T is float, __half or __nv_bfloat16.
template <class T>
cudaError_t launch(const Params& p, const Choice& c, cudaStream_t s) {
  if (p.rows <= 0 || p.n <= 0) return cudaSuccess;
  if (c.kind == Choice::kGroup) {
    switch (c.lanes) {
      case 32:
        return launch_group<T, 32>(p, c, s);
      case 16:
        return launch_group<T, 16>(p, c, s);
      case 8:
        return launch_group<T, 8>(p, c, s);
      default:
        return launch_group<T, 4>(p, c, s);
    }
  }
  if (c.kind == Choice::kBlock) {
    switch (c.lanes) {
      case 128:
        return launch_block<T, 128>(p, c.iters, s);
      case 256:
        return launch_block<T, 256>(p, c.iters, s);
      case 512:
        return launch_block<T, 512>(p, c.iters, s);
      default:
        return launch_block<T, 1024>(p, c.iters, s);
    }
  }
  layer_norm_generic_kernel<T><<<grid_of(p.rows), kGenericThreads, 0, s>>>(p);
  return cudaGetLastError();
}

/// Chooses by n and the pointers' alignment, then launches.
template <class T>
cudaError_t launch(const Params& p, cudaStream_t s) {
  const bool aligned = aligned16(p.x) && aligned16(p.y) && aligned16(p.scale) && (!p.bias || aligned16(p.bias));
  return launch<T>(p, choose(p.n, sizeof(T), aligned), s);
}

}  // namespace ie::ln
