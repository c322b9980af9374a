// A lab variant, not shipped (tests/kernels/fused_conv_lab.cu's wgsh_* runs; the engine's conv1 stays on the pool-on-M
// kernel): H200, conv1 from float32 in bf16 at 10000 images 0.347-0.360 ms against the pool-on-M kernel's 0.208 (the
// engine's profile) and the stacked kernel's 0.311, 147 M instructions (ncu): a tile's 7 k-steps are too little work
// for its divisions, clamps and 4 stores a lane, and the staging divides per 8-column unit.
//
// Fused Conv + bias + ReLU + 2x2 MaxPool of ONE input channel on Hopper's warpgroup MMA (wgmma): the output pixels
// on M in groups of 8 columns and the 8 column shifts on N, so that a K chunk of 8 taps is 16 contiguous bytes of a
// staged input row (an ldmatrix row) for every M row. Depends on CUDA alone (the lab builds it with nvcc); sm_90a.
//
// The product of a tile (32 groups of 8 conv columns x 2 conv rows, one warpgroup; warp w4 takes groups 8 w4 ..):
//   M = 64: row m of warp w4 is group f = tile x 32 + 8 w4 + m % 8 (a flat index over (row pair, group) of the
//       image) at conv row 2 x pair + m / 8, its 8 columns x0 = 8 x group .. x0 + 7;
//   N = 8 x 4 (channels x shifts): n = 8 co + s is channel co at column x0 + s;
//   K = r kernel rows x 16 taps: A[m][k] = in[y + ky][x0 + t] (t = k % 16 < 16), B[k][n] = w[co][ky][t - s] (zero
//       where t - s is outside the kernel): one k-step per kernel row, its two 8-tap chunks 16 bytes each.
// The image is staged as 16-bit rows (from float32 or 16-bit input, rounded as the operand), so A comes by one
// ldmatrix.x4 per k-step and lane; B (the weights, constant) is placed once per CTA in the 128-byte-swizzled K-major
// layout wgmma reads. A lane's accumulators d[4 co + 2 h + e] are rows g + 8h (conv rows y, y + 1) and columns
// x0 + 2q + e: exactly one 2x2 pool window per channel, pooled in the lane (no shuffles), then bias and ReLU.
// MACs: 16 taps x 8 shifts per 8 outputs for r taps (2.3x the kept taps for r = 7), read at 3 KB of shared memory per
// 32 K MACs; the first convolution of the conv net (one channel, 4 output channels, 7x7, 2x2 pool) on Tensor Cores
// without the 4x channel padding of the pixels-on-M kernel.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "layers/common/mma_sync.cuh"
#include "layers/fused_conv/fused_conv_wgmma_pixels.cuh"

namespace ie::fused_conv {

constexpr int kWgsGroups = 32;           // 8-column groups per tile (8 per warp)
constexpr int kWgsMaxStage = 64 * 1024;  // bytes of one staged image

struct WgShiftsOne {
  static constexpr const char* kName = "wgsh_1wg";
  static constexpr int kWarpGroups = 1, kMinBlocks = 4;
};
struct WgShiftsTwo {
  static constexpr const char* kName = "wgsh_2wg";
  static constexpr int kWarpGroups = 2, kMinBlocks = 2;
};

struct WgShiftsPlan {
  int n, h, w, k, r, pad;  // shape (one input channel; 2x2 pool of stride 2)
  int ph, pw;              // pooled output
  int hp;                  // padded input rows
  int groups;              // 8-column groups per conv row pair (ceil(kept columns / 8))
  int flat;                // (row pair, group) positions per image
  int tiles;               // per image: ceil(flat / 32)
  int sw;                  // staged row width in elements (groups x 8 + 8: a group reads 16 columns)
  int pitch;               // bytes per staged row
  int rows;                // staged rows (kept rows + r - 1)
  int buf_bytes;           // one staged image
  int w_bytes;             // the weights: ceil(r / 4) blocks of 32 rows x 128 bytes
  int image_elems;         // h x w
  bool aligned;            // pairs of input elements loadable at once (w and pad even; the launcher checks x)
};

// Why this kernel does not take the shape ("" when it does).
inline std::string wgmma_shifts_unsupported(const ConvPoolShape& s, Variant v) {
  if (v != Variant::kMmaBf16 && v != Variant::kMmaF16) return "bf16/fp16 products only";
  if (s.c != 1) return "more than one input channel";
  if (s.k > 4) return "more than 4 output channels";
  if (s.r != 3 && s.r != 5 && s.r != 7) return "kernel not 3x3, 5x5 or 7x7";
  if (s.pool_window != 2 || s.pool_stride != 2) return "pool not 2x2 of stride 2";
  if (pooled_h(s) < 1 || pooled_w(s) < 1) return "no pooled output";
  const int64_t groups = (kept_conv_cols(s) + 7) / 8, sw = groups * 8 + 8;
  const int64_t rows = kept_conv_rows(s) + s.r - 1;
  if (s.w > 8192 || rows * sw * 2 > kWgsMaxStage) return "image over 64 KB staged";
  return "";
}

inline bool make_wgmma_shifts_plan(const ConvPoolShape& s, Variant v, WgShiftsPlan* p, std::string* why) {
  if (std::string no = wgmma_shifts_unsupported(s, v); !no.empty()) {
    *why = no;
    return false;
  }
  WgShiftsPlan q{};
  q.n = s.n, q.h = s.h, q.w = s.w, q.k = s.k, q.r = s.r, q.pad = s.pad;
  q.ph = pooled_h(s), q.pw = pooled_w(s);
  q.hp = s.h + 2 * s.pad;
  q.groups = (kept_conv_cols(s) + 7) / 8;
  q.flat = q.ph * q.groups;
  q.tiles = (q.flat + kWgsGroups - 1) / kWgsGroups;
  q.sw = q.groups * 8 + 8;
  q.pitch = q.sw * 2;
  q.rows = kept_conv_rows(s) + s.r - 1;
  q.buf_bytes = (q.rows * q.pitch + 127) / 128 * 128;
  q.w_bytes = (s.r + 3) / 4 * 32 * 128;
  q.image_elems = s.h * s.w;
  q.aligned = s.w % 2 == 0 && s.pad % 2 == 0;
  if (static_cast<int64_t>(s.n) * q.tiles > INT32_MAX || static_cast<int64_t>(s.h) * s.w > INT32_MAX) {
    *why = "too many tiles";
    return false;
  }
  *p = q;
  return true;
}

inline size_t wgmma_shifts_weight_bytes(const ConvPoolShape& s) {
  return static_cast<size_t>((s.r + 3) / 4) * 32 * 128;
}

// B as wgmma reads it (32 rows; put_b_sw128).
template <class T>
void wgmma_shifts_pack_weights(const ConvPoolShape& s, const float* w, void* out) {
  const size_t bytes = wgmma_shifts_weight_bytes(s);
  unsigned char* dst = static_cast<unsigned char*>(out);
  std::fill(dst, dst + bytes, 0);
  for (int ky = 0; ky < s.r; ++ky)
    for (int n = 0; n < 32; ++n)
      for (int t = 0; t < 16; ++t) {
        const int co = n / 8, kx = t - n % 8;
        const float v = co < s.k && kx >= 0 && kx < s.r ? w[(static_cast<size_t>(co) * s.r + ky) * s.r + kx] : 0.f;
        put_b_sw128<T>(dst, 32, ky, n, t, v);
      }
}

#if defined(__CUDACC__)

namespace wgs {

// Staged elements sx .. sx + 7 of staged row sy (input row sy - pad, columns sx - pad ..), rounded to T, zero outside.
template <class T, class TIn>
__device__ __forceinline__ uint4 load_unit(const WgShiftsPlan& p, const TIn* __restrict__ img, int sy, int sx) {
  const int iy = sy - p.pad, ix0 = sx - p.pad;
  uint32_t wd[4] = {0, 0, 0, 0};
  if (iy < 0 || iy >= p.h) return make_uint4(0, 0, 0, 0);
  const TIn* src = img + static_cast<int64_t>(iy) * p.w;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int x0 = ix0 + 2 * i;
    float lo = 0.f, hi = 0.f;
    if constexpr (std::is_same_v<TIn, float>) {
      if (p.aligned && x0 >= 0 && x0 + 1 < p.w) {
        const float2 f = __ldg(reinterpret_cast<const float2*>(src + x0));
        lo = f.x, hi = f.y;
      } else {
        if (x0 >= 0 && x0 < p.w) lo = __ldg(src + x0);
        if (x0 + 1 >= 0 && x0 + 1 < p.w) hi = __ldg(src + x0 + 1);
      }
      wd[i] = dev::pack_pair<T>(lo, hi);
    } else {
      const uint16_t* s16 = reinterpret_cast<const uint16_t*>(src);
      if (p.aligned && x0 >= 0 && x0 + 1 < p.w) {
        wd[i] = __ldg(reinterpret_cast<const unsigned int*>(s16 + x0));
      } else {
        const uint32_t l = x0 >= 0 && x0 < p.w ? s16[x0] : 0u, u = x0 + 1 >= 0 && x0 + 1 < p.w ? s16[x0 + 1] : 0u;
        wd[i] = l | u << 16;
      }
    }
  }
  return make_uint4(wd[0], wd[1], wd[2], wd[3]);
}

}  // namespace wgs

// T: the product's 16-bit type; TIn: the input's (float32 or T); KS = r.
template <class Cfg, class T, class TIn, class TOut, int KS>
__global__ void __launch_bounds__(128 * Cfg::kWarpGroups, Cfg::kMinBlocks)
    fused_conv_wgmma_shifts_kernel(const WgShiftsPlan p, int tpi, int ipi, int items, const TIn* __restrict__ x,
                                   const uint4* __restrict__ wpacked, const float* __restrict__ bias,
                                   TOut* __restrict__ y) {
  constexpr int kThreads = 128 * Cfg::kWarpGroups;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (dev::smem_addr(smem_raw) & 1023)) & 1023);
  unsigned char* bufs = smem + p.w_bytes;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wg = warp >> 2, w4 = warp & 3, q = lane & 3;

  for (int i = tid; i < p.w_bytes / 16; i += kThreads) reinterpret_cast<uint4*>(smem)[i] = wpacked[i];
  wg::fence_proxy_async();  // the weights, for wgmma's reads
  float bias_v[4];
#pragma unroll
  for (int co = 0; co < 4; ++co) bias_v[co] = co < p.k ? bias[co] : 0.f;
  const uint64_t wdesc0 = wg::desc_sw128(dev::smem_addr(smem));
  // The lane's ldmatrix row: tile mi = lane / 8 (M rows 8 (mi & 1) .., the k-step's chunk mi / 2), row lane % 8.
  const int mi = lane >> 3, lrow = lane & 7;
  const int units_per_row = p.sw / 8;

  float d[16];
  for (int item = blockIdx.x, it = 0; item < items; item += gridDim.x, ++it) {
    const int img = item / ipi, t0 = (item - img * ipi) * tpi, t1 = min(p.tiles, t0 + tpi);
    // The staged rows this item's tiles read: row pairs [rp0, rp1] -> rows 2 rp0 .. 2 rp1 + 1 + r - 1.
    const int f_lo = t0 * kWgsGroups, f_hi = min(p.flat, t1 * kWgsGroups) - 1;
    const int sy0 = 2 * (f_lo / p.groups), sy1 = min(p.rows, 2 * (f_hi / p.groups) + 2 + p.r - 1);
    unsigned char* buf = bufs + (it & 1) * p.buf_bytes;
    const TIn* src = x + static_cast<int64_t>(img) * p.image_elems;
    const int units = (sy1 - sy0) * units_per_row;
#pragma unroll 4
    for (int u = tid; u < units; u += kThreads) {
      const int row = u / units_per_row, col = u - row * units_per_row;
      *reinterpret_cast<uint4*>(buf + (sy0 + row) * p.pitch + col * 16) = wgs::load_unit<T>(p, src, sy0 + row, col * 8);
    }
    __syncthreads();  // the staged item (its buffer was last read two items ago, before the last barrier)
    uint64_t wdesc = wdesc0;
    asm volatile("" : "+l"(wdesc));  // kept in a register
    const uint32_t buf_addr = dev::smem_addr(buf);
    for (int t = t0 + wg; t < t1; t += Cfg::kWarpGroups) {
      // The lane's ldmatrix row and the lane's output group (positions past the image clamped to its last).
      const int f_l = min(p.flat - 1, t * kWgsGroups + 8 * w4 + lrow);
      const int rp_l = f_l / p.groups, grp_l = f_l - rp_l * p.groups;
      const uint32_t base = buf_addr + (2 * rp_l + (mi & 1)) * p.pitch + (grp_l * 8 + 8 * (mi >> 1)) * 2;
      uint32_t a[KS][4];
#pragma unroll
      for (int s = 0; s < KS; ++s) dev::ldmatrix_x4(a[s], base + s * p.pitch);
      wg::fence();
#pragma unroll
      for (int s = 0; s < KS; ++s) wgp::mma<T, 4>(d, a[s], wdesc + (((s >> 2) * 32 * 128 + (s & 3) * 32) >> 4), s > 0);
      wg::commit();
      wg::wait_all();
      wgp::pin(d);
      // d[4 co + 2 h + e]: M row g + 8h (conv row 2 rp + h), column 8 grp + 2q + e: one 2x2 window per channel.
      const int f = t * kWgsGroups + 8 * w4 + (lane >> 2);
      if (f < p.flat) {
        const int rp = f / p.groups, grp = f - rp * p.groups, px = 4 * grp + q;
        if (px < p.pw) {
#pragma unroll
          for (int co = 0; co < 4; ++co)
            if (co < p.k) {
              const float m = nan_max(nan_max(d[4 * co], d[4 * co + 1]), nan_max(d[4 * co + 2], d[4 * co + 3]));
              y[((static_cast<int64_t>(img) * p.k + co) * p.ph + rp) * p.pw + px] =
                  from_float<TOut>(nan_relu(m + bias_v[co]));
            }
        }
      }
    }
  }
}

template <class Cfg, class T, class TIn, class TOut, int KS>
cudaError_t launch_wgmma_shifts_r(const WgShiftsPlan& p, const TIn* x, const uint4* w, const float* bias, TOut* y,
                                  cudaStream_t stream) {
  auto kernel = fused_conv_wgmma_shifts_kernel<Cfg, T, TIn, TOut, KS>;
  constexpr int kThreads = 128 * Cfg::kWarpGroups;
  const int smem_bytes = p.w_bytes + 2 * p.buf_bytes + 1024;
  int slots = 0;
  if (cudaError_t err = resident_slots(kernel, kThreads, smem_bytes, &slots); err != cudaSuccess) return err;
  const ItemSplit it = split_items(p.n, p.tiles, Cfg::kWarpGroups, slots);
  kernel<<<std::min(it.items, slots), kThreads, smem_bytes, stream>>>(p, it.tpi, it.ipi, it.items, x, w, bias, y);
  return cudaGetLastError();
}

// T: the product's 16-bit type; TIn: float (the graph's input, rounded as staged) or T; weights from
// wgmma_shifts_pack_weights<T>.
template <class Cfg, class T, class TIn, class TOut>
cudaError_t launch_fused_conv_wgmma_shifts(const WgShiftsPlan& plan, const TIn* x, const void* packed_w,
                                           const float* bias, TOut* y, cudaStream_t stream) {
  const uint4* w = static_cast<const uint4*>(packed_w);
  WgShiftsPlan p = plan;  // paired loads only from an input aligned for them
  p.aligned = p.aligned && reinterpret_cast<uintptr_t>(x) % (2 * sizeof(TIn)) == 0;
  if (p.r == 3) return launch_wgmma_shifts_r<Cfg, T, TIn, TOut, 3>(p, x, w, bias, y, stream);
  if (p.r == 5) return launch_wgmma_shifts_r<Cfg, T, TIn, TOut, 5>(p, x, w, bias, y, stream);
  return launch_wgmma_shifts_r<Cfg, T, TIn, TOut, 7>(p, x, w, bias, y, stream);
}

#endif  // __CUDACC__

}  // namespace ie::fused_conv
