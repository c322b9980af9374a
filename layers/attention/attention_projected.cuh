// ie.Attention with its q, k and v projections (projection = 1, rule attention_projection) in float16 and
// bfloat16: one kernel reads x [B, S, K] once, multiplies it by the packed [K, 3E] weight on Tensor Cores (WMMA
// 16x16x16, float accumulation) into shared memory, adds the bias, applies RoPE and the softmax scale there, and
// attends from shared memory (attend_row of attention_fused.cuh): q, k and v never reach global memory.
// Depends on CUDA alone, so tests/kernels/attention_lab.cu builds it with nvcc.
//
// A CTA stages the weight once (grid-stride over groups of `elements` batch elements, like the Linear kernel),
// then per group: x rows (16-byte cp.async into one of two buffers: the next group's rows arrive while this one
// is worked on; zero rows up to a multiple of 16), the product tiles (one warp per 16 x 16 tile), bias + RoPE +
// scale in place, one thread (or a team, for head dims above 16) per query row.
// x must be 16-byte aligned (the engine's buffers are). Limits, declined with the reason by plan_projected:
// 16-bit types; E a multiple of 16 (column tiles); head dims 8 or a multiple of 16 whose lanes per row are a power
// of two (8, 16, 32, 64, 128); K a multiple of 8.
#pragma once

#include <mma.h>

#include "layers/attention/attention_fused.cuh"
#include "layers/common/cp_async.cuh"

namespace ie::att {

// Query lanes per group by default: 256 beat 128, 320 and 512 at the SSA's shape (attention lab).
constexpr int kProjectedThreads = 256;

struct ProjectedLayout {
  int dc = 16, team = 1;
  int elements = 1;  // batch elements per group
  int rows = 16;     // elements * seq rounded up to 16
  int threads = 0;
  size_t smem = 0;
};

// The packed weight, two x buffers (the next group's rows arrive while this group is worked on), the products.
inline size_t projected_smem(int kp, int n, int rows, int elem_bytes) {
  return static_cast<size_t>(kp) * (n + 8) * elem_bytes + 2 * static_cast<size_t>(rows) * (kp + 8) * elem_bytes +
         static_cast<size_t>(rows) * (n + 4) * sizeof(float);
}

// The layout for groups of about `target_threads` query lanes within `smem_budget` bytes; false with the reason.
inline bool plan_projected(const Params& p, int elem_bytes, int target_threads, size_t smem_budget, size_t smem_optin,
                           ProjectedLayout* out, const char** why) {
  ProjectedLayout l;
  const int e = p.heads * p.dim;
  if (elem_bytes != 2) {
    *why = "float32 (this kernel multiplies in 16 bits; the engine runs float32 projections as one cuBLASLt product)";
    return false;
  }
  if (e % 16 != 0) {
    *why = "an embedding width that is not a multiple of 16";
    return false;
  }
  if (p.dim != 8 && p.dim % 16 != 0) {
    *why = "a head dim other than 8 or a multiple of 16";
    return false;
  }
  l.dc = p.dim == 8 ? 8 : 16;
  l.team = p.dim / l.dc;
  if ((l.team & (l.team - 1)) != 0 || l.team > kMaxTeam) {
    *why = "a head dim whose lanes per row are not a power of two";
    return false;
  }
  if (p.width % 8 != 0) {
    *why = "x rows that are not a multiple of 16 bytes";
    return false;
  }
  const int per_element = p.heads * p.seq * l.team;
  if (per_element > kMaxRowsThreads) {
    *why = "more than 512 query lanes per batch element";
    return false;
  }
  auto rows_of = [&](int elements) { return (elements * p.seq + 15) / 16 * 16; };
  const int n = 3 * e;
  if (projected_smem(p.width_padded, n, rows_of(1), elem_bytes) > smem_optin) {
    *why = "the packed weight and one element's products beyond shared memory";
    return false;
  }
  int elements = target_threads / per_element;
  if (elements < 1) elements = 1;
  while (elements * per_element > kMaxRowsThreads) --elements;
  while (elements > 1 && projected_smem(p.width_padded, n, rows_of(elements), elem_bytes) > smem_budget) --elements;
  if (elements > p.batch) elements = static_cast<int>(p.batch < 1 ? 1 : p.batch);
  l.elements = elements;
  l.rows = rows_of(elements);
  l.threads = (elements * per_element + 31) / 32 * 32;
  if (l.threads < 128) l.threads = 128;  // four warps for the product tiles
  l.smem = projected_smem(p.width_padded, n, l.rows, elem_bytes);
  *out = l;
  return true;
}

template <class T, int DC>
__global__ void __launch_bounds__(kMaxRowsThreads, 1)
    attention_projected_kernel(Params p, int team, int elements, int rows) {
  using namespace nvcuda;
  const int S = p.seq, D = p.dim, H = p.heads, E = H * D, N = 3 * E, K = p.width, KP = p.width_padded;
  const int ldw = N + 8, ldx = KP + 8, ldq = N + 4;
  extern __shared__ __align__(128) unsigned char smem[];
  T* w_s = reinterpret_cast<T*>(smem);                          // KP x ldw
  T* x_s = w_s + KP * ldw;                                      // 2 x rows x ldx
  float* q_s = reinterpret_cast<float*>(x_s + 2 * rows * ldx);  // rows x ldq: q | k | v per row
  {
    const T* w = static_cast<const T*>(p.w);
    const int vecs = N / 8;
    for (int i = threadIdx.x; i < KP * vecs; i += blockDim.x) {
      const int r = i / vecs, c = (i - r * vecs) * 8;
      *reinterpret_cast<uint4*>(w_s + r * ldw + c) = __ldg(reinterpret_cast<const uint4*>(w + r * N + c));
    }
  }
  const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const float qscale = p.scale * 1.4426950408889634f;
  const T* x = static_cast<const T*>(p.x);
  const int64_t step = static_cast<int64_t>(gridDim.x) * elements;
  // Starts copying the x rows of the group at b0 into buffer `buf` (zeros past the batch and past K).
  auto prefetch = [&](int64_t b0, int buf) {
    const int vecs = KP / 8;
    const int valid = static_cast<int>((p.batch - b0 < elements ? p.batch - b0 : elements) * S);
    T* dst = x_s + buf * rows * ldx;
    for (int i = threadIdx.x; i < rows * vecs; i += blockDim.x) {
      const int r = i / vecs, c = (i - r * vecs) * 8;
      const bool ok = r < valid && c < K;
      dev::cp_async16(dst + r * ldx + c, ok ? x + (b0 * S + r) * K + c : x, ok);
    }
    dev::cp_async_commit();
  };
  int buf = 0;
  if (static_cast<int64_t>(blockIdx.x) * elements < p.batch) prefetch(static_cast<int64_t>(blockIdx.x) * elements, 0);
  for (int64_t b0 = static_cast<int64_t>(blockIdx.x) * elements; b0 < p.batch; b0 += step, buf ^= 1) {
    const int nb = static_cast<int>(p.batch - b0 < elements ? p.batch - b0 : elements);
    const int valid = nb * S;
    if (b0 + step < p.batch) {
      prefetch(b0 + step, buf ^ 1);  // its buffer was last read by the previous group's product, before a barrier
      dev::cp_async_wait<1>();
    } else {
      dev::cp_async_wait<0>();
    }
    __syncthreads();  // this group's x (every thread's copies) and W are in shared memory; q_s is free
    const T* xb = x_s + buf * rows * ldx;
    const int tiles_c = N / 16;
    for (int tile = warp; tile < rows / 16 * tiles_c; tile += warps) {
      const int tr = tile / tiles_c, tc = tile - tr * tiles_c;
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.f);
      for (int kk = 0; kk < KP; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, xb + tr * 16 * ldx + kk, ldx);
        wmma::load_matrix_sync(fb, w_s + kk * ldw + tc * 16, ldw);
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync(q_s + tr * 16 * ldq + tc * 16, acc, ldq, wmma::mem_row_major);
    }
    __syncthreads();
    // bias; RoPE on the q and k pairs at position s = row % S; q times scale * log2(e).
    for (int i = threadIdx.x; i < valid * (N / 2); i += blockDim.x) {
      const int r = i / (N / 2), c = 2 * (i - r * (N / 2));
      float* at = q_s + r * ldq + c;
      float a = at[0] + __ldg(p.bias + c), b = at[1] + __ldg(p.bias + c + 1);
      if (c < 2 * E && p.cos) {
        const int pair = ((c < E ? c : c - E) % D) / 2;
        const int idx = (r % S) * (D / 2) + pair;
        const float cs = __ldg(p.cos + idx), sn = __ldg(p.sin + idx);
        const float ra = a * cs - b * sn, rb = a * sn + b * cs;
        a = ra, b = rb;
      }
      if (c < E) a *= qscale, b *= qscale;
      at[0] = a, at[1] = b;
    }
    __syncthreads();
    const int per_element = H * S * team;
    if (threadIdx.x < nb * per_element) {
      const int bl = threadIdx.x / per_element;
      const int rest = threadIdx.x - bl * per_element;
      const int h = rest / (S * team);
      const int i = (rest / team) % S, t = rest % team;
      const float* base = q_s + bl * S * ldq + h * D + t * DC;
      float acc[DC];
      const float inv = attend_row<DC>(base + i * ldq, base + E, base + 2 * E, ldq, S, team, acc);
      T* out = static_cast<T*>(p.y) + ((b0 + bl) * S + i) * E + h * D;
      store_row<T, DC>(out, t, D, acc, inv);
    }
  }
}

// Launches the projected kernel on `stream`; cudaErrorInvalidValue when plan_projected refuses the shape (the
// kernel factory checks it first and declines with the reason).
template <class T>
cudaError_t launch_projected(const Params& p, cudaStream_t stream, int target_threads = kProjectedThreads,
                             size_t smem_budget = 2 * kDefaultSmem) {
  if (p.batch == 0) return cudaSuccess;
  if (reinterpret_cast<uintptr_t>(p.x) % 16 != 0) return cudaErrorMisalignedAddress;
  dev::DeviceLimits limits;
  cudaError_t err = dev::device_limits(&limits);
  if (err != cudaSuccess) return err;
  ProjectedLayout l;
  const char* why = nullptr;
  if (!plan_projected(p, sizeof(T), target_threads, smem_budget, static_cast<size_t>(limits.smem_optin), &l, &why))
    return cudaErrorInvalidValue;
  auto kernel = l.dc == 8 ? attention_projected_kernel<T, 8> : attention_projected_kernel<T, 16>;
  int per_sm = 0;
  err = dev::resident_blocks(kernel, l.threads, static_cast<int>(l.smem), limits.smem_optin, &per_sm);
  if (err != cudaSuccess) return err;
  const int64_t groups = (p.batch + l.elements - 1) / l.elements;
  const int64_t fill = static_cast<int64_t>(per_sm < 1 ? 1 : per_sm) * limits.sms;
  const int64_t grid = groups < fill ? groups : fill;
  kernel<<<static_cast<unsigned>(grid), l.threads, l.smem, stream>>>(p, l.team, l.elements, l.rows);
  return cudaGetLastError();
}

}  // namespace ie::att
