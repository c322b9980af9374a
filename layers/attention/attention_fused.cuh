// The fused kernel set's multi-head self-attention for short sequences (ie.Attention): one kernel reads q, k
// and v [B, S, E] once, applies RoPE as it loads them, keeps scores and softmax in registers and writes the
// heads merged back into [B, S, E]. Depends on CUDA alone, so tests/kernels/attention_lab.cu builds it with nvcc.
//
// A unit is one (batch, head) pair: q, k and v of one head, S x D each. A CTA takes U consecutive units:
//  1. load: the units' q, k and v go to shared memory as float, pair by pair (RoPE rotates pairs (2i, 2i+1) with
//     the float tables of row s); q is also multiplied by scale * log2(e), so the softmax runs on exp2.
//  2. attend: a team of T lanes per query row (T = 1 for head dims up to 16; each lane owns DC = 16 dims, or 8
//     for dims up to 8) runs an online softmax over the S keys: dot product (team sum by xor shuffles), running
//     max and sum, and the output row accumulated in registers, rescaled only when the max grows.
//  3. write: each lane writes its DC dims of the row, divided by the sum, at h*D in the merged row.
// Key and value rows are read by every team of a unit at the same address (shared-memory broadcasts). Head dims
// are padded to T*DC with zeros in shared memory, so odd dims need no special path; D must be even (pairs).
// In float, for head dims up to 16, the tile form (Variant below) does the same from the CTA's rows copied whole
// into shared memory, a thread per query row and head.
// Floors (H200): the kernel reads 3 and writes 1 B x S x E tensor; at the SSA's S = 10, D = 16 its arithmetic,
// 4 S D flops per query row, is under a tenth of the bytes' time, so the copy bandwidth is its floor.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "layers/common/cp_async.cuh"
#include "layers/common/float_device.cuh"
#include "layers/common/launch_limits.cuh"

namespace ie::att {

struct Params {
  const void* q = nullptr;  // [batch, seq, heads * dim], T
  const void* k = nullptr;
  const void* v = nullptr;
  void* y = nullptr;
  const float* cos = nullptr;  // [seq, dim / 2] float, or null: no RoPE
  const float* sin = nullptr;
  int64_t batch = 0;
  int seq = 0, heads = 0, dim = 0;
  int ld = 0;  // elements from one row of q, k or v to the next; 0: heads * dim (q | k | v of one product: 3 E)
  float scale = 1.f;
  // The projected form (attention_projected.cuh): q | k | v = x w + bias computed in the kernel.
  const void* x = nullptr;          // [batch, seq, k], T
  const void* w = nullptr;          // [kp, 3 * heads * dim], T, rows past k zero
  const float* bias = nullptr;      // [3 * heads * dim]
  int width = 0, width_padded = 0;  // x's width K, and K rounded up to 16
};

// How a launch splits the work (see the top of the file).
struct Layout {
  int dc = 16;        // dims per lane
  int team = 1;       // lanes per query row (a power of two)
  int dp = 16;        // padded head dim: team * dc
  int units = 1;      // (batch, head) units per CTA
  bool rows = false;  // units are whole batch elements (a multiple of heads): loaded as 16-byte vectors
  int threads = 0;    // units * seq * team, rounded up to whole warps
  size_t smem = 0;    // units * 3 * seq * dp floats (tile: tile_smem_floats)
  bool tile = false;  // the tile form (below)
};

// Which form of the kernel a launch takes. The tile form (float, head dims up to 16 and a multiple of 4, q, k and v
// either three [B, S, E] tensors or one [B, S, 3E] product): the CTA's rows are one contiguous run per tensor (or
// one), copied into shared memory by cp.async as 16-byte chunks in order, so a warp's copies are whole lines; a
// thread per (element, position, head) then takes its own q row into registers and its k and v rows, rotated, into
// the per-head layout the attention reads without bank conflicts; its output row goes back over its q row and the
// CTA's merged rows leave in order. The staged form loads q, k and v per thread in a strided loop and writes each
// lane's dims of the output row. At the SSA's head of 64 bytes a thread's own row as 16-byte loads (a warp's
// accesses touching twice the sectors they use) left the L1 the limit (ncu: 93% of L1 at 53% of DRAM); index
// arithmetic per chunk (divisions by the shape) made the first tile form issue-bound
// (tools/results/h200/attention_own/).
enum class Variant { Auto, Staged, Tile };

// The tile form's shared memory: the raw rows (q, k, v chunks in their global order, each group of four chunks
// permuted by swizzle16() so that a warp's threads reading chunk c of their own rows spread over all banks), then
// each (element, head) unit's k and v rows as the staged form keeps them (unit_floats without q).
__host__ __device__ inline int tile_unit_floats(int seq, int dp) { return (2 * seq * dp + 31) / 32 * 32 + 4; }
__host__ __device__ inline int tile_raw_floats(int elements, int seq, int heads, int dim) {
  return (elements * seq * 3 * heads * dim + 15) / 16 * 16;
}
__host__ __device__ inline int tile_smem_floats(int elements, int seq, int heads, int dim, int dp) {
  return tile_raw_floats(elements, seq, heads, dim) + elements * heads * tile_unit_floats(seq, dp);
}
// Chunk g's place among the raw chunks: its low two bits xor bits 3-4 (a permutation of each group of four).
__host__ __device__ inline int swizzle16(int g) { return g ^ ((g >> 3) & 3); }

constexpr int kMaxTeam = 32;

// Floats of one unit's q, k and v in shared memory, rounded so that consecutive units start 16 bytes apart in the
// banks: the teams of a warp reading key j of their own units then hit different banks (the SSA's unit of 480
// floats made every such read a 4-way conflict).
__host__ __device__ inline int unit_floats(int seq, int dp) { return (3 * seq * dp + 31) / 32 * 32 + 4; }
// CTAs of whole batch elements take at most 512 threads: the 16-byte loads of q, k and v need more than the 64
// registers a thread has at 1024 (12 bytes spilled).
constexpr int kMaxRowsThreads = 512;
// The launch's default CTA size and shared-memory budget (the lab times the others).
constexpr int kDefaultThreads = 128;
constexpr size_t kDefaultSmem = 64 * 1024;

// The layout for a CTA of about `target_threads`, its shared memory at most `smem_budget` bytes, for elements of
// `elem_bytes`; false (with the reason in `why`) when one unit does not fit the device (`smem_optin`) or the
// limits of the kernel. Whole batch elements per CTA where they fit and the head dim is a multiple of 16 bytes:
// the CTA's q, k and v are then contiguous, and load as 16-byte vectors with little index arithmetic.
inline bool plan_layout(const Params& p, int elem_bytes, int target_threads, size_t smem_budget, size_t smem_optin,
                        Layout* out, const char** why, Variant variant = Variant::Auto) {
  Layout l;
  if (p.dim < 2 || p.dim % 2 != 0) {
    *why = "an odd head dim (the kernel loads and rotates pairs)";
    return false;
  }
  l.dc = p.dim <= 8 ? 8 : 16;
  const int lanes = (p.dim + l.dc - 1) / l.dc;
  while (l.team < lanes) l.team *= 2;
  if (l.team > kMaxTeam) {
    *why = "a head dim above 512";
    return false;
  }
  l.dp = l.team * l.dc;
  const int per_unit = p.seq * l.team;
  if (p.seq < 1 || per_unit > 1024) {
    *why = "a sequence longer than 1024 / (head dim / 16) positions (one thread per position and 16 dims)";
    return false;
  }
  const size_t unit_bytes = static_cast<size_t>(unit_floats(p.seq, l.dp)) * sizeof(float);
  if (unit_bytes > smem_optin) {
    *why = "a head's q, k and v beyond shared memory";
    return false;
  }
  const int64_t all = p.batch * p.heads;
  const int E = p.heads * p.dim, ld = p.ld > 0 ? p.ld : E;
  auto tile_bytes = [&](int elements) {
    return static_cast<size_t>(tile_smem_floats(elements, p.seq, p.heads, p.dim, l.dp)) * sizeof(float);
  };
  const bool tile_fits = elem_bytes == 4 && l.team == 1 && p.dim % 4 == 0 && (ld == E || ld == 3 * E) &&
                         p.seq * p.heads <= kMaxRowsThreads && tile_bytes(1) <= smem_optin;
  if (variant == Variant::Tile && !tile_fits) {
    *why =
        "the tile form takes float, head dims up to 16 in multiples of 4, q, k, v apart or as one product, and an "
        "element within 512 threads";
    return false;
  }
  if (variant != Variant::Staged && tile_fits) {
    int elements = target_threads / (p.seq * p.heads);
    if (elements < 1) elements = 1;
    while (elements > 1 && (tile_bytes(elements) > smem_budget || elements * p.seq * p.heads > kMaxRowsThreads))
      --elements;
    if (elements > p.batch) elements = static_cast<int>(p.batch < 1 ? 1 : p.batch);
    l.tile = true;
    l.units = elements * p.heads;
    l.threads = (elements * p.seq * p.heads + 31) / 32 * 32;
    l.smem = tile_bytes(elements);
    *out = l;
    return true;
  }
  const int vec = 16 / elem_bytes;
  l.rows = p.dim % vec == 0 && p.ld % vec == 0 && per_unit * p.heads <= kMaxRowsThreads &&
           p.heads * unit_bytes <= smem_optin;
  int units;
  if (l.rows) {
    int elements = target_threads / (per_unit * p.heads);
    if (elements < 1) elements = 1;
    while (elements > 1 && elements * p.heads * unit_bytes > smem_budget) --elements;
    if (elements > p.batch) elements = static_cast<int>(p.batch < 1 ? 1 : p.batch);
    units = elements * p.heads;
  } else {
    units = target_threads / per_unit;
    if (units < 1) units = 1;
    while (units > 1 && units * unit_bytes > smem_budget) --units;
    if (units > all) units = static_cast<int>(all < 1 ? 1 : all);
  }
  l.units = units;
  l.threads = (units * per_unit + 31) / 32 * 32;
  l.smem = units * unit_bytes;
  *out = l;
  return true;
}

// Two 16-bit values packed in a word, as floats.
template <class T>
__device__ __forceinline__ float2 unpack2(unsigned word) {
  if constexpr (std::is_same_v<T, __half>) {
    __half2 h;
    memcpy(&h, &word, sizeof word);
    return __half22float2(h);
  } else {
    __nv_bfloat162 h;
    memcpy(&h, &word, sizeof word);
    return __bfloat1622float2(h);
  }
}

// 16 bytes of T as floats.
template <class T>
__device__ __forceinline__ void load16(const T* p, float (&x)[16 / sizeof(T)]) {
  const uint4 raw = *reinterpret_cast<const uint4*>(p);
  if constexpr (sizeof(T) == 4) {
    x[0] = __uint_as_float(raw.x), x[1] = __uint_as_float(raw.y), x[2] = __uint_as_float(raw.z),
    x[3] = __uint_as_float(raw.w);
  } else {
    const float2 a = unpack2<T>(raw.x), b = unpack2<T>(raw.y), c = unpack2<T>(raw.z), d = unpack2<T>(raw.w);
    x[0] = a.x, x[1] = a.y, x[2] = b.x, x[3] = b.y, x[4] = c.x, x[5] = c.y, x[6] = d.x, x[7] = d.y;
  }
}

// Two neighbouring elements (an even offset: D, E and the dims a lane owns are even) as one 4- or 8-byte access.
template <class T>
__device__ __forceinline__ void load_pair(const void* base, int64_t at, float& a, float& b) {
  const T* p = static_cast<const T*>(base) + at;
  if constexpr (sizeof(T) == 4) {
    const float2 x = *reinterpret_cast<const float2*>(p);
    a = x.x, b = x.y;
  } else if constexpr (std::is_same_v<T, __half>) {
    const float2 x = __half22float2(*reinterpret_cast<const __half2*>(p));
    a = x.x, b = x.y;
  } else {
    const float2 x = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(p));
    a = x.x, b = x.y;
  }
}

template <class T>
__device__ __forceinline__ void store_pair(T* p, float a, float b) {
  if constexpr (sizeof(T) == 4)
    *reinterpret_cast<float2*>(p) = make_float2(a, b);
  else if constexpr (std::is_same_v<T, __half>)
    *reinterpret_cast<__half2*>(p) = __floats2half2_rn(a, b);
  else
    *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(a, b);
}

// One query row against S keys, by the team of `team` lanes this lane belongs to (lane t owns dims t*DC ..):
// the lane's q dims in registers (already scaled by scale * log2(e)), key and value rows `stride` floats apart
// from ks and vs. Online softmax: running max and sum, the output accumulated in acc and rescaled only when the
// max grows. Returns 1 / sum.
template <int DC>
__device__ __forceinline__ float attend_q(const float (&q)[DC], const float* ks, const float* vs, int stride, int S,
                                          int team, float (&acc)[DC]) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned mask = team == 32 ? 0xffffffffu : ((1u << team) - 1u) << (lane & ~static_cast<unsigned>(team - 1));
#pragma unroll
  for (int c = 0; c < DC; ++c) acc[c] = 0.f;
  float m = -INFINITY, l = 0.f;
  for (int j = 0; j < S; ++j) {
    const float* kj = ks + j * stride;
    float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;  // four chains: the dot product's latency, not 16 in a row
#pragma unroll
    for (int c = 0; c < DC; c += 4) {
      const float4 x = *reinterpret_cast<const float4*>(kj + c);
      s0 = fmaf(q[c], x.x, s0);
      s1 = fmaf(q[c + 1], x.y, s1);
      s2 = fmaf(q[c + 2], x.z, s2);
      s3 = fmaf(q[c + 3], x.w, s3);
    }
    float s = (s0 + s1) + (s2 + s3);
    for (int o = 1; o < team; o <<= 1) s += __shfl_xor_sync(mask, s, o, team);
    if (s > m) {  // the running max grows: rescale what was summed under the old one (exp2(-inf) = 0 at first)
      const float corr = exp2f(m - s);
      l *= corr;
#pragma unroll
      for (int c = 0; c < DC; ++c) acc[c] *= corr;
      m = s;
    }
    const float e = exp2f(s - m);
    l += e;
    const float* vj = vs + j * stride;
#pragma unroll
    for (int c = 0; c < DC; c += 4) {
      const float4 x = *reinterpret_cast<const float4*>(vj + c);
      acc[c] = fmaf(e, x.x, acc[c]);
      acc[c + 1] = fmaf(e, x.y, acc[c + 1]);
      acc[c + 2] = fmaf(e, x.z, acc[c + 2]);
      acc[c + 3] = fmaf(e, x.w, acc[c + 3]);
    }
  }
  return 1.f / l;
}

// The same with the lane's q dims read from shared memory at qs.
template <int DC>
__device__ __forceinline__ float attend_row(const float* qs, const float* ks, const float* vs, int stride, int S,
                                            int team, float (&acc)[DC]) {
  float q[DC];
#pragma unroll
  for (int c = 0; c < DC; c += 4) {
    const float4 x = *reinterpret_cast<const float4*>(qs + c);
    q[c] = x.x, q[c + 1] = x.y, q[c + 2] = x.z, q[c + 3] = x.w;
  }
  return attend_q<DC>(q, ks, vs, stride, S, team, acc);
}

// Lane t's dims of an output row (a head's D values at out), divided by the sum.
template <class T, int DC>
__device__ __forceinline__ void store_row(T* out, int t, int D, const float (&acc)[DC], float inv) {
#pragma unroll
  for (int c = 0; c < DC; c += 2) {
    const int d = t * DC + c;
    if (d < D) store_pair(out + d, acc[c] * inv, acc[c + 1] * inv);
  }
}

template <class T, int DC, bool kRows>
__global__ void __launch_bounds__(kRows ? kMaxRowsThreads : 1024, 1)
    attention_kernel(Params p, int team, int dp, int units_per_cta) {
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  const int S = p.seq, D = p.dim, H = p.heads, E = H * D, ld = p.ld > 0 ? p.ld : E;
  const int64_t units = p.batch * H;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * units_per_cta;
  const int n_units = static_cast<int>(units - first < units_per_cta ? units - first : units_per_cta);
  const int tensor_floats = S * dp;  // one of q, k, v of one unit
  const int unit_stride = unit_floats(S, dp);
  const int half = dp / 2;
  const float qscale = p.scale * 1.4426950408889634f;

  if constexpr (kRows) {
    // 1. load whole batch elements: the CTA's rows of q, k, v; 16-byte vectors never straddle a head.
    constexpr int V = 16 / sizeof(T);
    const int SE = S * E;
    const int64_t origin = first / H * S * ld;
    const T* qg = static_cast<const T*>(p.q) + origin;
    const T* kg = static_cast<const T*>(p.k) + origin;
    const T* vg = static_cast<const T*>(p.v) + origin;
    for (int iv = threadIdx.x; iv < n_units / H * SE / V; iv += blockDim.x) {
      const int e = iv * V;
      const int bl = e / SE, rem = e - bl * SE;
      const int s = rem / E, c = rem - s * E;
      const int h = c / D, d = c - h * D, from = (bl * S + s) * ld + c;
      float q[V], k[V], v[V];
      load16(qg + from, q);
      load16(kg + from, k);
      load16(vg + from, v);
      if (p.cos) {
#pragma unroll
        for (int m = 0; m < V / 2; ++m) {
          const int at = s * (D / 2) + d / 2 + m;
          const float cs = __ldg(p.cos + at), sn = __ldg(p.sin + at);
          const float q0 = q[2 * m], q1 = q[2 * m + 1], k0 = k[2 * m], k1 = k[2 * m + 1];
          q[2 * m] = q0 * cs - q1 * sn, q[2 * m + 1] = q0 * sn + q1 * cs;
          k[2 * m] = k0 * cs - k1 * sn, k[2 * m + 1] = k0 * sn + k1 * cs;
        }
      }
      float* dst = smem + (bl * H + h) * unit_stride + s * dp + d;
#pragma unroll
      for (int m = 0; m < V; m += 4) {
        *reinterpret_cast<float4*>(dst + m) =
            make_float4(q[m] * qscale, q[m + 1] * qscale, q[m + 2] * qscale, q[m + 3] * qscale);
        *reinterpret_cast<float4*>(dst + tensor_floats + m) = make_float4(k[m], k[m + 1], k[m + 2], k[m + 3]);
        *reinterpret_cast<float4*>(dst + 2 * tensor_floats + m) = make_float4(v[m], v[m + 1], v[m + 2], v[m + 3]);
      }
    }
    if (dp != D) {  // zero the padded dims of every row
      const int pad = dp - D;
      for (int idx = threadIdx.x; idx < n_units * 3 * S * pad; idx += blockDim.x) {
        const int row = idx / pad, unit = row / (3 * S);
        smem[unit * unit_stride + (row - unit * 3 * S) * dp + D + (idx - row * pad)] = 0.f;
      }
    }
  } else {
    // 1. load (and rotate) every unit's q, k, v as float pairs; pad dims with zeros.
    for (int idx = threadIdx.x; idx < n_units * S * half; idx += blockDim.x) {
      const int pr = idx % half;
      const int s = (idx / half) % S;
      const int u = idx / (half * S);
      const int64_t unit = first + u;
      const int64_t b = unit / H;
      const int h = static_cast<int>(unit % H);
      const int d = 2 * pr;
      float q0 = 0.f, q1 = 0.f, k0 = 0.f, k1 = 0.f, v0 = 0.f, v1 = 0.f;
      if (d < D) {
        const int64_t at = (b * S + s) * ld + static_cast<int64_t>(h) * D + d;
        load_pair<T>(p.q, at, q0, q1);
        load_pair<T>(p.k, at, k0, k1);
        load_pair<T>(p.v, at, v0, v1);
        if (p.cos) {
          const float c = __ldg(p.cos + s * (D / 2) + pr), sn = __ldg(p.sin + s * (D / 2) + pr);
          const float rq0 = q0 * c - q1 * sn, rq1 = q0 * sn + q1 * c;
          const float rk0 = k0 * c - k1 * sn, rk1 = k0 * sn + k1 * c;
          q0 = rq0, q1 = rq1, k0 = rk0, k1 = rk1;
        }
      }
      float* at = smem + u * unit_stride + s * dp + d;
      *reinterpret_cast<float2*>(at) = make_float2(q0 * qscale, q1 * qscale);
      *reinterpret_cast<float2*>(at + tensor_floats) = make_float2(k0, k1);
      *reinterpret_cast<float2*>(at + 2 * tensor_floats) = make_float2(v0, v1);
    }
  }
  __syncthreads();

  // 2. attend: team `t` of query row `i` of unit `u`.
  const int per_unit = S * team;
  const int u = threadIdx.x / per_unit;
  if (u >= n_units) return;  // no barrier below
  const int r = threadIdx.x % per_unit;
  const int i = r / team, t = r % team;
  const float* unit_smem = smem + u * unit_stride;
  const float* qs = unit_smem + i * dp + t * DC;
  const float* ks = unit_smem + tensor_floats + t * DC;
  const float* vs = unit_smem + 2 * tensor_floats + t * DC;
  float acc[DC];
  const float inv = attend_row<DC>(qs, ks, vs, dp, S, team, acc);

  // 3. write this lane's dims of the merged row.
  const int64_t unit = first + u;
  const int64_t b = unit / H;
  const int h = static_cast<int>(unit % H);
  T* out = static_cast<T*>(p.y) + (b * S + i) * E + static_cast<int64_t>(h) * D;
  store_row<T, DC>(out, t, D, acc, inv);
}

// The tile form (see Variant): thread (element e, position s, head h), heads fastest. packed: q | k | v are one
// [B, S, 3E] product (k = q + E, v = q + 2E); else three [B, S, E] tensors.
template <int DC>
__global__ void __launch_bounds__(kMaxRowsThreads, 1)
    attention_tile_kernel(Params p, int dp, int elements_per_cta, bool packed) {
  extern __shared__ float4 smem4[];
  float4* raw = smem4;
  const int S = p.seq, D = p.dim, H = p.heads, E = H * D, C = E / 4;  // C: 16-byte chunks of one tensor's row
  const int64_t first = static_cast<int64_t>(blockIdx.x) * elements_per_cta;
  const int n_el =
      static_cast<int>(p.batch - first < elements_per_cta ? p.batch - first : static_cast<int64_t>(elements_per_cta));
  const int64_t row0 = first * S;  // the CTA's first row of q, k, v and y
  const int n_rows = n_el * S;
  // Chunk c of row r of tensor t is raw chunk t * t_stride + r * r_stride + c (before the swizzle).
  const int t_stride = packed ? C : elements_per_cta * S * C, r_stride = packed ? 3 * C : C;

  // 1. copy the CTA's rows in order: one run of n_rows * 3C chunks, or one of n_rows * C per tensor.
  for (int t = 0; t < (packed ? 1 : 3); ++t) {
    const float4* src = static_cast<const float4*>(t == 0 ? p.q : t == 1 ? p.k : p.v) + row0 * r_stride;
    const int n = n_rows * (packed ? 3 * C : C);
    for (int i = threadIdx.x; i < n; i += blockDim.x) dev::cp_async16(raw + swizzle16(t * t_stride + i), src + i, true);
  }
  dev::cp_async_commit();
  dev::cp_async_wait<0>();
  __syncthreads();

  // 2. each thread its q row into registers (rotated and scaled), its k (rotated) and v rows into its unit.
  const int h = threadIdx.x % H, row = threadIdx.x / H, s = row % S, el = row / S;
  const bool live = el < n_el;
  const int g0 = row * r_stride + h * D / 4;  // the thread's first chunk of q
  float* unit = reinterpret_cast<float*>(smem4) + tile_raw_floats(elements_per_cta, S, H, D) +
                (el * H + h) * tile_unit_floats(S, dp);
  float q[DC];
  if (live) {
    float k[DC], v[DC];
#pragma unroll
    for (int c = 0; c < DC / 4; ++c) {
      float4 a = make_float4(0.f, 0.f, 0.f, 0.f), b = a, d = a;
      if (4 * c < D) {
        a = raw[swizzle16(g0 + c)];
        b = raw[swizzle16(g0 + t_stride + c)];
        d = raw[swizzle16(g0 + 2 * t_stride + c)];
      }
      q[4 * c] = a.x, q[4 * c + 1] = a.y, q[4 * c + 2] = a.z, q[4 * c + 3] = a.w;
      k[4 * c] = b.x, k[4 * c + 1] = b.y, k[4 * c + 2] = b.z, k[4 * c + 3] = b.w;
      v[4 * c] = d.x, v[4 * c + 1] = d.y, v[4 * c + 2] = d.z, v[4 * c + 3] = d.w;
    }
    if (p.cos) {
#pragma unroll
      for (int m = 0; m < DC / 2; ++m) {
        if (2 * m >= D) break;
        const float cs = __ldg(p.cos + s * (D / 2) + m), sn = __ldg(p.sin + s * (D / 2) + m);
        const float q0 = q[2 * m], q1 = q[2 * m + 1], k0 = k[2 * m], k1 = k[2 * m + 1];
        q[2 * m] = q0 * cs - q1 * sn, q[2 * m + 1] = q0 * sn + q1 * cs;
        k[2 * m] = k0 * cs - k1 * sn, k[2 * m + 1] = k0 * sn + k1 * cs;
      }
    }
    const float qscale = p.scale * 1.4426950408889634f;
#pragma unroll
    for (int c = 0; c < DC; c += 4) {
      q[c] *= qscale, q[c + 1] *= qscale, q[c + 2] *= qscale, q[c + 3] *= qscale;
      *reinterpret_cast<float4*>(unit + s * dp + c) = make_float4(k[c], k[c + 1], k[c + 2], k[c + 3]);
      *reinterpret_cast<float4*>(unit + (S + s) * dp + c) = make_float4(v[c], v[c + 1], v[c + 2], v[c + 3]);
    }
  }
  __syncthreads();

  // 3. attend; the output row over this thread's own q chunks (no other thread reads them).
  if (live) {
    float acc[DC];
    const float inv = attend_q<DC>(q, unit, unit + S * dp, dp, S, 1, acc);
#pragma unroll
    for (int c = 0; c < DC / 4; ++c)
      if (4 * c < D)
        raw[swizzle16(g0 + c)] =
            make_float4(acc[4 * c] * inv, acc[4 * c + 1] * inv, acc[4 * c + 2] * inv, acc[4 * c + 3] * inv);
  }
  __syncthreads();

  // 4. write: the merged rows [n_rows, E] are contiguous in y; chunk i is chunk i % C of row i / C.
  float4* y = static_cast<float4*>(p.y) + row0 * C;
  for (int i = threadIdx.x; i < n_rows * C; i += blockDim.x) y[i] = raw[swizzle16(packed ? i + i / C * 2 * C : i)];
}

// Launches the kernel on `stream` with a CTA of about `target_threads`; cudaErrorInvalidValue when plan_layout
// refuses the shape (the kernel factory checks it first and declines with the reason).
template <class T>
cudaError_t launch(const Params& p, cudaStream_t stream, int target_threads = kDefaultThreads,
                   size_t smem_budget = kDefaultSmem, Variant variant = Variant::Auto) {
  if (p.batch * p.heads == 0) return cudaSuccess;
  dev::DeviceLimits limits;
  cudaError_t err = dev::device_limits(&limits);
  if (err != cudaSuccess) return err;
  Layout l;
  const char* why = nullptr;
  if (!plan_layout(p, sizeof(T), target_threads, smem_budget, static_cast<size_t>(limits.smem_optin), &l, &why,
                   variant))
    return cudaErrorInvalidValue;
  auto aligned = [](const void* x) { return reinterpret_cast<uintptr_t>(x) % 16 == 0; };
  const int E = p.heads * p.dim;
  const bool packed = (p.ld == 3 * E && static_cast<const T*>(p.k) == static_cast<const T*>(p.q) + E &&
                       static_cast<const T*>(p.v) == static_cast<const T*>(p.q) + 2 * E);
  if (l.tile && !(aligned(p.q) && aligned(p.k) && aligned(p.v) && aligned(p.y) && (packed || p.ld <= 0 || p.ld == E))) {
    if (!plan_layout(p, sizeof(T), target_threads, smem_budget, static_cast<size_t>(limits.smem_optin), &l, &why,
                     Variant::Staged))
      return cudaErrorInvalidValue;
  }
  if (l.tile) {
    if constexpr (sizeof(T) == 4) {
      auto kernel = l.dc == 8 ? attention_tile_kernel<8> : attention_tile_kernel<16>;
      int per_sm = 0;
      err = dev::resident_blocks(kernel, l.threads, static_cast<int>(l.smem), limits.smem_optin, &per_sm);
      if (err != cudaSuccess) return err;
      const int elements = l.units / p.heads;
      const int64_t grid = (p.batch + elements - 1) / elements;
      if (grid > 0x7fffffff) return cudaErrorInvalidValue;
      kernel<<<static_cast<unsigned>(grid), l.threads, l.smem, stream>>>(p, l.dp, elements, packed);
      return cudaGetLastError();
    }
  }
  const bool rows = l.rows && aligned(p.q) && aligned(p.k) && aligned(p.v);
  auto kernel = rows ? (l.dc == 8 ? attention_kernel<T, 8, true> : attention_kernel<T, 16, true>)
                     : (l.dc == 8 ? attention_kernel<T, 8, false> : attention_kernel<T, 16, false>);
  int per_sm = 0;
  err = dev::resident_blocks(kernel, l.threads, static_cast<int>(l.smem), limits.smem_optin, &per_sm);
  if (err != cudaSuccess) return err;
  const int64_t units = p.batch * p.heads;
  const int64_t grid = (units + l.units - 1) / l.units;
  if (grid > 0x7fffffff) return cudaErrorInvalidValue;
  kernel<<<static_cast<unsigned>(grid), l.threads, l.smem, stream>>>(p, l.team, l.dp, l.units);
  return cudaGetLastError();
}

}  // namespace ie::att
