// Fused Conv + bias + ReLU + MaxPool on Hopper's warpgroup MMA (wgmma) as an implicit GEMM with the output pixels
// on M and the weights as the B operand in shared memory. Depends on CUDA alone (the lab builds it with nvcc);
// sm_90a.
//
// The product of a tile (4 conv rows x 32 conv columns of one image, one warpgroup):
//   M = 64 pixels: warp w4 of the warpgroup takes columns 8 w4 .. 8 w4 + 7 as 4 column pairs; its row m (0..15)
//       is conv row m / 4 (of the tile's 4) at the pair m % 4, the pair's left column x = 8 w4 + 2 (m % 4);
//   N = 2 x output channels (16 or 32): n = 2 co + s is channel co at column x + s (the pair's two columns);
//   K = the kernel's r rows x (r + 1) taps x input channels: A[m][k] = the input at (y + ky, x + kx, ci), and
//       B[k][n] = w[co][ci][ky][kx - s] (zero where kx - s is outside the kernel).
// The input image is staged channels-last (HWC, channels padded to CP = 4 or 8) in shared memory, so a 16-byte
// chunk of K (CP = 4: two taps x 4 channels; CP = 8: one tap x 8 channels) is one 16-byte row of an ldmatrix
// 8x8 tile: A is loaded from the staged image by one ldmatrix.x4 per k-step and lane (the im2col exists only as
// addresses), held in registers, and B (the weights, constant) was placed once per CTA in the 128-byte-swizzled
// K-major layout wgmma reads. A column pair per M row halves the A loads per output at (r + 1) / r the MACs.
// Epilogue: the pool window's values lie in the lane (its two columns; rows m and m + 8 for a 4x4 pool) and across
// lanes (pairs: lane bit 2, rows: lane bit 4), combined by reduce-scatter shuffles, then bias and ReLU (NaN kept).
// Pipeline per CTA (persistent over items = an image or a part of its tiles): the item's input is staged from
// registers loaded under the previous item's products, one barrier, then each warpgroup runs its tiles.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "layers/common/mma_sync.cuh"
#include "layers/fused_conv/fused_conv_wgmma.cuh"

namespace ie::fused_conv {

constexpr int kWgpRows = 4;              // conv rows per tile
constexpr int kWgpCols = 32;             // conv columns per tile (8 per warp: 4 column pairs)
constexpr int kWgpMaxKS = 16;            // k-steps of one tile's A fragments in registers (64 registers)
constexpr int kWgpMaxStage = 64 * 1024;  // bytes of one staged image

// Tile configurations: warpgroups per CTA (they share the staged image and the weights) and the CTAs per SM the
// registers must allow.
// kGroups: the k-steps of a tile in 1 or 2 groups (2: each group's A loads under the products before it).
struct WgPixelsTwo {
  static constexpr const char* kName = "wgpx_2wg";
  static constexpr int kWarpGroups = 2, kMinBlocks = 2, kGroups = 2;
};
struct WgPixelsOne {
  static constexpr const char* kName = "wgpx_1wg";
  static constexpr int kWarpGroups = 1, kMinBlocks = 3, kGroups = 2;
};

struct WgPixelsPlan {
  int n, c, h, w, k, r, pad, ps;  // shape; ps: the pool's window = stride (2 or 4)
  int ph, pw;                     // pooled output
  int cp;                         // staged channels per pixel (4 or 8)
  int cpd;                        // 16-byte K chunks per kernel row (its r + 1 taps)
  int kc, ks;                     // K chunks (r x cpd) and k-steps (ceil(kc / 2))
  int nt;                         // N / 8 (N = 16 or 32)
  int hp, wp;                     // the padded input
  int groups;                     // 8-column staging groups per staged row
  int pitch;                      // bytes per staged row (16-byte multiple; rows interleave across ldmatrix banks)
  int bands, cbs, tiles;          // per image: bands of 4 kept conv rows x column blocks of 32 = tiles
  int buf_bytes;                  // one staged image with slack rows (discarded outputs read past it)
  int w_bytes;                    // the weights in shared memory: ceil(ks / 4) blocks of N rows x 128 bytes
  int image_elems;                // c x h x w
  bool aligned16;                 // 16-byte loads of 8 staged columns (w and pad multiples of 8)
};

inline int wgp_cp(int c) { return c <= 4 ? 4 : 8; }
inline int wgp_cpd(int c, int r) { return c <= 4 ? (r + 2) / 2 : r + 1; }
inline int wgp_ks(int c, int r) { return (r * wgp_cpd(c, r) + 1) / 2; }
inline int wgp_nt(int k) { return k <= 8 ? 2 : 4; }
// 8-column staging groups per staged row: an even kernel with CP = 4 reads one column past the kernel's r + 1 (its
// chunks hold 2 taps), kept inside the row so that a kept output never reads another row's or item's data.
inline int wgp_groups(const ConvPoolShape& s) {
  return (s.w + 2 * s.pad + (wgp_cp(s.c) == 4 && s.r % 2 == 0 ? 1 : 0) + 7) / 8;
}
// Bytes per staged row. An ldmatrix tile's 8 rows are 4 pixels of two conv rows: CP = 4: 64 contiguous bytes per
// conv row, the next row 64 bytes further modulo 128; CP = 8: 16 bytes of every 32, the next row 16 further modulo 32.
inline int wgp_pitch(const ConvPoolShape& s) {
  const int cp = wgp_cp(s.c), row_bytes = wgp_groups(s) * 8 * cp * 2;
  return cp == 4 ? (row_bytes % 128 == 64 ? row_bytes : row_bytes + 64)
                 : (row_bytes % 32 == 16 ? row_bytes : row_bytes + 16);
}
// One staged image with slack rows and columns (the discarded outputs of the last band and column block read past
// the image: up to 3 rows and a column block).
inline int64_t wgp_buf_bytes(const ConvPoolShape& s) {
  return ((static_cast<int64_t>(s.h) + 2 * s.pad + 5) * wgp_pitch(s) + 1024 + 127) / 128 * 128;
}

// Why this kernel does not take the shape ("" when it does).
inline std::string wgmma_pixels_unsupported(const ConvPoolShape& s, Variant v) {
  if (v != Variant::kMmaBf16 && v != Variant::kMmaF16) return "bf16/fp16 products only";
  if (s.k > 16) return "more than 16 output channels";
  if (s.c > 8) return "more than 8 input channels";
  if (s.pool_window != s.pool_stride || (s.pool_window != 2 && s.pool_window != 4))
    return "pool window and stride not both 2 or both 4";
  if (pooled_h(s) < 1 || pooled_w(s) < 1) return "no pooled output";
  if (wgp_ks(s.c, s.r) > kWgpMaxKS) return "kernel rows x taps x channels exceed 16 register-held k-steps";
  if (s.w > 4096 || s.h > 4096 || wgp_buf_bytes(s) > kWgpMaxStage) return "image over 64 KB staged";
  return "";
}

inline bool make_wgmma_pixels_plan(const ConvPoolShape& s, Variant v, WgPixelsPlan* p, std::string* why) {
  if (std::string no = wgmma_pixels_unsupported(s, v); !no.empty()) {
    *why = no;
    return false;
  }
  if (static_cast<int64_t>(s.c) * s.h * s.w > INT32_MAX) {
    *why = "images beyond 32 bits";
    return false;
  }
  WgPixelsPlan q{};
  q.n = s.n, q.c = s.c, q.h = s.h, q.w = s.w, q.k = s.k, q.r = s.r, q.pad = s.pad, q.ps = s.pool_window;
  q.ph = pooled_h(s), q.pw = pooled_w(s);
  q.cp = wgp_cp(s.c);
  q.cpd = wgp_cpd(s.c, s.r);
  q.kc = s.r * q.cpd;
  q.ks = (q.kc + 1) / 2;
  q.nt = wgp_nt(s.k);
  q.hp = s.h + 2 * s.pad, q.wp = s.w + 2 * s.pad;
  q.groups = wgp_groups(s);
  q.pitch = wgp_pitch(s);
  q.bands = (kept_conv_rows(s) + kWgpRows - 1) / kWgpRows;
  q.cbs = (kept_conv_cols(s) + kWgpCols - 1) / kWgpCols;
  q.tiles = q.bands * q.cbs;
  q.buf_bytes = static_cast<int>(wgp_buf_bytes(s));
  q.w_bytes = (q.ks + 3) / 4 * q.nt * 8 * 128;
  q.image_elems = s.c * s.h * s.w;
  q.aligned16 = s.w % 8 == 0 && s.pad % 8 == 0;
  if (static_cast<int64_t>(s.n) * q.tiles > INT32_MAX) {
    *why = "too many tiles";
    return false;
  }
  *p = q;
  return true;
}

inline size_t wgmma_pixels_weight_bytes(const ConvPoolShape& s) {
  return static_cast<size_t>((wgp_ks(s.c, s.r) + 3) / 4) * wgp_nt(s.k) * 8 * 128;
}

// B as wgmma reads it from shared memory: per block of 4 k-steps (64 elements of K) N rows of 128 bytes, the
// 16-byte chunk j of row n at chunk j ^ (n % 8) (the 128-byte swizzle; the block 1024-byte aligned). Writes v as T at
// k-step st, row n, element kk (< 16) of a B with n_cols rows.
template <class T>
void put_b_sw128(unsigned char* dst, int n_cols, int st, int n, int kk, float v) {
  const int kin = (st % 4) * 16 + kk;
  const size_t off =
      static_cast<size_t>(st / 4) * n_cols * 128 + n * 128 + (((kin / 8) ^ (n % 8)) * 16) + (kin % 8) * 2;
  const uint16_t bits = static_cast<uint16_t>(Word16<T>::to16(v));
  dst[off] = static_cast<unsigned char>(bits & 0xFF);
  dst[off + 1] = static_cast<unsigned char>(bits >> 8);
}

template <class T>
void wgmma_pixels_pack_weights(const ConvPoolShape& s, const float* w, void* out) {
  const int cp = wgp_cp(s.c), cpd = wgp_cpd(s.c, s.r), kc = s.r * cpd, ks = (kc + 1) / 2, n_cols = wgp_nt(s.k) * 8;
  const size_t bytes = wgmma_pixels_weight_bytes(s);
  unsigned char* dst = static_cast<unsigned char*>(out);
  std::fill(dst, dst + bytes, 0);
  for (int st = 0; st < ks; ++st)
    for (int n = 0; n < n_cols; ++n)
      for (int kk = 0; kk < 16; ++kk) {
        const int ch = 2 * st + kk / 8, e = kk % 8;
        const int ky = ch / cpd, cpos = ch % cpd;
        const int dx = cp == 4 ? 2 * cpos + e / 4 : cpos, ci = cp == 4 ? e % 4 : e;
        const int co = n / 2, kx = dx - n % 2;
        float v = 0.f;
        if (ch < kc && co < s.k && ci < s.c && kx >= 0 && kx < s.r)
          v = w[((static_cast<size_t>(co) * s.c + ci) * s.r + ky) * s.r + kx];
        put_b_sw128<T>(dst, n_cols, st, n, kk, v);
      }
}

// ---- device side -------------------------------------------------------------------------------------------
#if defined(__CUDACC__)

namespace wgp {

// d (+)= A (registers) x B (descriptor), m64nNk16 for N = 8 NT, fp32 accumulation.
template <class T, int NT>
__device__ __forceinline__ void mma(float (&d)[NT * 4], const uint32_t (&a)[4], uint64_t desc, int accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(NT == 2 || NT == 4, "N = 16 or 32");
  if constexpr (NT == 2) {
#define IE_WGP_D8 "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
#define IE_WGP_TEXT(TYPE)                                     \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %14, 0;\n"                \
  "wgmma.mma_async.sync.aligned.m64n16k16.f32." TYPE "." TYPE \
  " {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"
    if constexpr (std::is_same_v<T, __half>)
      asm volatile(IE_WGP_TEXT("f16")
                   : IE_WGP_D8
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "n"(0), "r"(accumulate));
    else
      asm volatile(IE_WGP_TEXT("bf16")
                   : IE_WGP_D8
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "n"(0), "r"(accumulate));
#undef IE_WGP_TEXT
#undef IE_WGP_D8
  } else {
#define IE_WGP_D16                                                                                            \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
#define IE_WGP_TEXT(TYPE)                                                                                      \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %22, 0;\n"                                                                 \
  "wgmma.mma_async.sync.aligned.m64n32k16.f32." TYPE "." TYPE                                                  \
  " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, 1, " \
  "1, 0;\n}\n"
    if constexpr (std::is_same_v<T, __half>)
      asm volatile(IE_WGP_TEXT("f16")
                   : IE_WGP_D16
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "n"(0), "r"(accumulate));
    else
      asm volatile(IE_WGP_TEXT("bf16")
                   : IE_WGP_D16
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "n"(0), "r"(accumulate));
#undef IE_WGP_TEXT
#undef IE_WGP_D16
  }
#else
  __trap();  // sm_90a only
#endif
}

// Waits until at most N committed wgmma groups are pending.
template <int N>
__device__ __forceinline__ void wait_groups() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

template <int N>
__device__ __forceinline__ void pin(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// One staging unit: 8 consecutive staged columns of one staged row, all CP channels (v[ci]: 8 elements).
// Zero outside the input (padding, columns past the row, channels past c).
template <int CP>
__device__ __forceinline__ void load_unit(const WgPixelsPlan& p, const uint16_t* __restrict__ img, int srow, int grp,
                                          uint4 (&v)[CP]) {
  const int iy = srow - p.pad, ix0 = grp * 8 - p.pad;
  const bool row_in = iy >= 0 && iy < p.h;
#pragma unroll
  for (int ci = 0; ci < CP; ++ci) {
    v[ci] = make_uint4(0, 0, 0, 0);
    if (ci >= p.c || !row_in) continue;
    const uint16_t* src = img + (static_cast<int64_t>(ci) * p.h + iy) * p.w;
    if (p.aligned16) {
      if (ix0 >= 0 && ix0 < p.w) v[ci] = __ldg(reinterpret_cast<const uint4*>(src + ix0));
    } else {
      uint32_t wd[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int x0 = ix0 + 2 * i, x1 = x0 + 1;
        const uint32_t lo = x0 >= 0 && x0 < p.w ? src[x0] : 0u, hi = x1 >= 0 && x1 < p.w ? src[x1] : 0u;
        wd[i] = lo | hi << 16;
      }
      v[ci] = make_uint4(wd[0], wd[1], wd[2], wd[3]);
    }
  }
}

// The unit channels-last: pixel e's CP elements at byte e x CP x 2 of the unit's place (16 CP bytes) in the staged
// row. Adjacent threads' units lie 16 CP bytes apart, so their i-th 16-byte stores would share banks (call_b: 15.9-way
// conflicts): thread t writes its 16-byte pieces rotated by rot = (t / 2) % 4, spreading a quarter-warp's stores.
template <int CP>
__device__ __forceinline__ void store_unit(unsigned char* dst, const uint4 (&v)[CP], int rot) {
  uint32_t wd[CP][4];
#pragma unroll
  for (int ci = 0; ci < CP; ++ci) {
    // the channel's words rotated: word i of the result is word (i + rot) % 4 (two select stages)
    uint32_t a[4] = {v[ci].x, v[ci].y, v[ci].z, v[ci].w}, b[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) b[i] = rot & 2 ? a[(i + 2) & 3] : a[i];
#pragma unroll
    for (int i = 0; i < 4; ++i) wd[ci][i] = rot & 1 ? b[(i + 1) & 3] : b[i];
  }
  constexpr uint32_t kLo = 0x5410, kHi = 0x7632;  // the low (even pixel) or high (odd pixel) halves of two words
  if constexpr (CP == 4) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {  // pixels 2 pr and 2 pr + 1, pr = (i + rot) % 4: one 16-byte piece
      const int pr = (i + rot) & 3;
      *reinterpret_cast<uint4*>(dst + pr * 16) =
          make_uint4(__byte_perm(wd[0][i], wd[1][i], kLo), __byte_perm(wd[2][i], wd[3][i], kLo),
                     __byte_perm(wd[0][i], wd[1][i], kHi), __byte_perm(wd[2][i], wd[3][i], kHi));
    }
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) {  // pixels 2 pr (piece 2 pr) and 2 pr + 1 (piece 2 pr + 1)
      const int pr = (i + rot) & 3;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const uint32_t sel = e ? kHi : kLo;
        *reinterpret_cast<uint4*>(dst + (2 * pr + e) * 16) =
            make_uint4(__byte_perm(wd[0][i], wd[1][i], sel), __byte_perm(wd[2][i], wd[3][i], sel),
                       __byte_perm(wd[4][i], wd[5][i], sel), __byte_perm(wd[6][i], wd[7][i], sel));
      }
    }
  }
}

// An item: tiles [t0, t1) of image img, reading staged rows [sy0, sy0 + rows).
struct ItemSpan {
  int img, t0, t1, sy0, rows;
};
__device__ __forceinline__ ItemSpan item_span(const WgPixelsPlan& p, int item, int ipi, int tpi) {
  ItemSpan it;
  it.img = item / ipi;
  it.t0 = (item - it.img * ipi) * tpi;
  it.t1 = min(p.tiles, it.t0 + tpi);
  const int b0 = it.t0 / p.cbs, b1 = (it.t1 - 1) / p.cbs + 1;
  it.sy0 = b0 * kWgpRows;
  it.rows = min(p.hp, b1 * kWgpRows + p.r - 1) - it.sy0;
  return it;
}

}  // namespace wgp

// NT: N / 8; PS: the pool; CP: staged channels; KS: the k-steps run (p.ks rounded up to an instantiated count: the
// steps past p.ks multiply zero weights by chunk 0). Unconditional k-steps: a k-step under a run-time condition made
// ptxas fence every wgmma ("warpgroup.arrive is injected").
template <class Cfg, class T, class TOut, int NT, int PS, int CP, int KS>
__global__ void __launch_bounds__(128 * Cfg::kWarpGroups, Cfg::kMinBlocks)
    fused_conv_wgmma_pixels_kernel(const WgPixelsPlan p, int tpi, int ipi, int items, const T* __restrict__ x,
                                   const uint4* __restrict__ wpacked, const float* __restrict__ bias,
                                   TOut* __restrict__ y) {
  constexpr int kThreads = 128 * Cfg::kWarpGroups;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (dev::smem_addr(smem_raw) & 1023)) & 1023);
  unsigned char* bufs = smem + p.w_bytes;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wg = warp >> 2, w4 = warp & 3, q = lane & 3;
  const uint16_t* xin = reinterpret_cast<const uint16_t*>(x);

  for (int i = tid; i < p.w_bytes / 16; i += kThreads) reinterpret_cast<uint4*>(smem)[i] = wpacked[i];
  for (int i = tid; i < 2 * p.buf_bytes / 16; i += kThreads)  // slack rows read by discarded outputs: finite
    reinterpret_cast<uint4*>(bufs)[i] = make_uint4(0, 0, 0, 0);
  wg::fence_proxy_async();  // the weights, for wgmma's reads
  __syncthreads();          // the zeroed buffers before any staging store

  // The lane's ldmatrix row: tile mi = lane / 8 (M rows 8 (mi & 1) .., K chunk 2 s + mi / 2), row lane % 8.
  const int lm = (lane & 7) + 8 * ((lane >> 3) & 1), lhalf = lane >> 4;
  const int lane_off = (lm >> 2) * p.pitch + (8 * w4 + 2 * (lm & 3)) * CP * 2;
  int offs[KS];
#pragma unroll
  for (int s = 0; s < KS; ++s) {
    int ch = 2 * s + lhalf;
    if (ch >= p.kc) ch = 0;  // the odd chunk count's last: zero weights times an input inside the window
    const int ky = ch / p.cpd;
    offs[s] = lane_off + ky * p.pitch + (ch - ky * p.cpd) * 16;
  }
  // The lane's output after the pool's shuffles (fixed per lane): 4x4: channel 4 jj + q, jj = 2 b2 + b4 (NT 4) or
  // b2 (NT 2); 2x2: channels 4 (i / 2 + NT / 2 b4) + q for its NT values i.
  const int b2 = (lane >> 2) & 1, b4 = (lane >> 4) & 1;
  float bias_v[PS == 4 ? 1 : NT / 2];
  if constexpr (PS == 4) {
    const int co = 4 * (NT == 4 ? 2 * b2 + b4 : b2) + q;
    bias_v[0] = co < p.k ? bias[co] : 0.f;
  } else {
#pragma unroll
    for (int i = 0; i < NT / 2; ++i) {
      const int co = 4 * (i + NT / 2 * b4) + q;
      bias_v[i] = co < p.k ? bias[co] : 0.f;
    }
  }
  const int block_bytes = NT * 8 * 128;

  // Staging: units (staged row, 8-column group) of the item; the first kThreads are loaded ahead (under the
  // previous item's products), the rest as they are stored.
  const int rot = (tid >> 1) & 3;
  int item = blockIdx.x;
  uint4 v[CP];
  wgp::ItemSpan span{};
  if (item < items) {
    span = wgp::item_span(p, item, ipi, tpi);
    if (tid < span.rows * p.groups)
      wgp::load_unit<CP>(p, xin + static_cast<int64_t>(span.img) * p.image_elems, span.sy0 + tid / p.groups,
                         tid % p.groups, v);
  }
  float d[NT * 4];
  const uint64_t wdesc0 = wg::desc_sw128(dev::smem_addr(smem));
  for (int it = 0; item < items; ++it) {
    unsigned char* buf = bufs + (it & 1) * p.buf_bytes;
    const int units = span.rows * p.groups;
    const uint16_t* img = xin + static_cast<int64_t>(span.img) * p.image_elems;
    if (tid < units) wgp::store_unit<CP>(buf + (tid / p.groups) * p.pitch + (tid % p.groups) * 16 * CP, v, rot);
    for (int u = tid + kThreads; u < units; u += kThreads) {
      const int row = u / p.groups, grp = u - row * p.groups;
      wgp::load_unit<CP>(p, img, span.sy0 + row, grp, v);
      wgp::store_unit<CP>(buf + row * p.pitch + grp * 16 * CP, v, rot);
    }
    __syncthreads();  // the staged item; its buffer was last read two items ago, before the last barrier
    const wgp::ItemSpan cur = span;
    item += gridDim.x;
    if (item < items) {  // the next item's first units, loaded under this item's products
      span = wgp::item_span(p, item, ipi, tpi);
      if (tid < span.rows * p.groups)
        wgp::load_unit<CP>(p, xin + static_cast<int64_t>(span.img) * p.image_elems, span.sy0 + tid / p.groups,
                           tid % p.groups, v);
    }
    const uint32_t buf_addr = dev::smem_addr(buf);
    uint64_t wdesc = wdesc0;
    asm volatile("" : "+l"(wdesc));  // kept in a register: not rebuilt from the shared address per tile
    auto tile_base = [&](int t) {
      const int band = p.cbs == 1 ? t : t / p.cbs, cb = t - band * p.cbs;
      return buf_addr + (band * kWgpRows - cur.sy0) * p.pitch + cb * kWgpCols * CP * 2;
    };
    // d[4j + 2h + s]: M row g + 8h (conv row g / 4 + 2h, pair g % 4), channel 4j + q, column s of the pair.
    auto epilogue = [&](int t) {
      const int band = p.cbs == 1 ? t : t / p.cbs, cb = t - band * p.cbs;

      const int x0 = cb * kWgpCols + 8 * w4;  // the warp's first conv column
      const int64_t img_out = static_cast<int64_t>(cur.img) * p.k;
      if constexpr (PS == 4) {
        float u[NT];
#pragma unroll
        for (int j = 0; j < NT; ++j)
          u[j] = nan_max(nan_max(d[4 * j], d[4 * j + 1]), nan_max(d[4 * j + 2], d[4 * j + 3]));
        float val;
        if constexpr (NT == 4) {  // over lane bit 2 (the window's two pairs), then bit 4 (its rows g / 4)
          float u2[2];
#pragma unroll
          for (int i = 0; i < 2; ++i) {
            const float send = b2 ? u[i] : u[i + 2], keep = b2 ? u[i + 2] : u[i];
            u2[i] = nan_max(keep, __shfl_xor_sync(0xffffffffu, send, 4));
          }
          const float send = b4 ? u2[0] : u2[1], keep = b4 ? u2[1] : u2[0];
          val = nan_max(keep, __shfl_xor_sync(0xffffffffu, send, 16));
        } else {
          const float send = b2 ? u[0] : u[1], keep = b2 ? u[1] : u[0];
          const float v1 = nan_max(keep, __shfl_xor_sync(0xffffffffu, send, 4));
          val = nan_max(v1, __shfl_xor_sync(0xffffffffu, v1, 16));
        }
        const int co = 4 * (NT == 4 ? 2 * b2 + b4 : b2) + q;
        const int py = band, px = x0 / 4 + ((lane >> 3) & 1);
        if ((NT == 4 || b4 == 0) && co < p.k && py < p.ph && px < p.pw)
          y[((img_out + co) * p.ph + py) * p.pw + px] = from_float<TOut>(nan_relu(val + bias_v[0]));
      } else {
        float u[2 * NT];
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h) u[2 * j + h] = nan_max(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
        const int px = x0 / 2 + ((lane >> 2) & 3);
#pragma unroll
        for (int i = 0; i < NT; ++i) {  // over lane bit 4 (the window's rows): the lane keeps values i + NT b4
          const float send = b4 ? u[i] : u[i + NT], keep = b4 ? u[i + NT] : u[i];
          const float val = nan_max(keep, __shfl_xor_sync(0xffffffffu, send, 16));
          const int co = 4 * (i / 2 + NT / 2 * b4) + q, py = 2 * band + (i & 1);
          if (co < p.k && py < p.ph && px < p.pw)
            y[((img_out + co) * p.ph + py) * p.pw + px] = from_float<TOut>(nan_relu(val + bias_v[i / 2]));
        }
      }
    };
    // The k-steps in groups (kGroups 2: the first H0, then the rest): a group's A loads run under the products of
    // the group before it, and the next tile's first group loads under this tile's last products.
    constexpr int H0 = Cfg::kGroups == 1 ? KS : (KS + 1) / 2;
    uint32_t a[KS][4];
    int t = cur.t0 + wg;
    if (t < cur.t1) {
      const uint32_t base = tile_base(t);
#pragma unroll
      for (int s = 0; s < H0; ++s) dev::ldmatrix_x4(a[s], base + offs[s]);
    }
    for (; t < cur.t1; t += Cfg::kWarpGroups) {
      const int tn = t + Cfg::kWarpGroups;
      wg::fence();
#pragma unroll
      for (int s = 0; s < H0; ++s)
        wgp::mma<T, NT>(d, a[s], wdesc + (((s >> 2) * block_bytes + (s & 3) * 32) >> 4), s > 0);
      wg::commit();
      if constexpr (H0 < KS) {
        const uint32_t base = tile_base(t);
#pragma unroll
        for (int s = H0; s < KS; ++s) dev::ldmatrix_x4(a[s], base + offs[s]);
        wg::fence();
#pragma unroll
        for (int s = H0; s < KS; ++s)
          wgp::mma<T, NT>(d, a[s], wdesc + (((s >> 2) * block_bytes + (s & 3) * 32) >> 4), 1);
        wg::commit();
        wgp::wait_groups<1>();  // the first group's products done: its registers may be loaded again
      } else {
        wg::wait_all();
      }
      if (tn < cur.t1) {
        const uint32_t base = tile_base(tn);
#pragma unroll
        for (int s = 0; s < H0; ++s) dev::ldmatrix_x4(a[s], base + offs[s]);
      }
      if constexpr (H0 < KS) wg::wait_all();
      wgp::pin(d);
      epilogue(t);
    }
  }
}

// A persistent grid's work items: tpi tiles of one image each (ipi items an image, items in all). Whole images when
// they fill the GPU's CTA slots; for small batches fewer tiles an item (at least one per warpgroup), so that more
// CTAs share an image.
struct ItemSplit {
  int tpi, ipi, items;
};
inline ItemSplit split_items(int n, int tiles, int warpgroups, int slots) {
  int tpi = tiles;
  if (n < slots) tpi = std::max(warpgroups, std::min(tiles, tiles * n / slots));
  const int ipi = (tiles + tpi - 1) / tpi;
  return {tpi, ipi, n * ipi};
}

template <class Cfg, class T, class TOut, int NT, int PS, int CP, int KS>
cudaError_t launch_wgmma_pixels_shape(const WgPixelsPlan& p, const T* x, const uint4* w, const float* bias, TOut* y,
                                      cudaStream_t stream) {
  auto kernel = fused_conv_wgmma_pixels_kernel<Cfg, T, TOut, NT, PS, CP, KS>;
  constexpr int kThreads = 128 * Cfg::kWarpGroups;
  const int smem_bytes = p.w_bytes + 2 * p.buf_bytes + 1024;
  int slots = 0;
  if (cudaError_t err = resident_slots(kernel, kThreads, smem_bytes, &slots); err != cudaSuccess) return err;
  const ItemSplit it = split_items(p.n, p.tiles, Cfg::kWarpGroups, slots);
  kernel<<<std::min(it.items, slots), kThreads, smem_bytes, stream>>>(p, it.tpi, it.ipi, it.items, x, w, bias, y);
  return cudaGetLastError();
}

// T: the product's 16-bit type (the input's type too); weights from wgmma_pixels_pack_weights<T>.
template <class Cfg, class T, class TOut>
cudaError_t launch_fused_conv_wgmma_pixels(const WgPixelsPlan& plan, const T* x, const void* packed_w,
                                           const float* bias, TOut* y, cudaStream_t stream) {
  const uint4* w = static_cast<const uint4*>(packed_w);
  WgPixelsPlan p = plan;  // 16-byte loads only from a 16-byte-aligned input
  p.aligned16 = p.aligned16 && reinterpret_cast<uintptr_t>(x) % 16 == 0;
  // k-steps: CP = 4 takes 1, 2, 3, 6, 8, 12 or 14 (r = 1..7), CP = 8 6, 10 or 15 (r = 3..5).
  auto by_cp = [&](auto nt, auto ps) {
    constexpr int NT = decltype(nt)::value, PS = decltype(ps)::value;
    if (p.cp == 4) {
      if (p.ks <= 4) return launch_wgmma_pixels_shape<Cfg, T, TOut, NT, PS, 4, 4>(p, x, w, bias, y, stream);
      if (p.ks <= 8) return launch_wgmma_pixels_shape<Cfg, T, TOut, NT, PS, 4, 8>(p, x, w, bias, y, stream);
      if (p.ks <= 12) return launch_wgmma_pixels_shape<Cfg, T, TOut, NT, PS, 4, 12>(p, x, w, bias, y, stream);
      return launch_wgmma_pixels_shape<Cfg, T, TOut, NT, PS, 4, 14>(p, x, w, bias, y, stream);
    }
    if (p.ks <= 8) return launch_wgmma_pixels_shape<Cfg, T, TOut, NT, PS, 8, 8>(p, x, w, bias, y, stream);
    if (p.ks <= 12) return launch_wgmma_pixels_shape<Cfg, T, TOut, NT, PS, 8, 12>(p, x, w, bias, y, stream);
    return launch_wgmma_pixels_shape<Cfg, T, TOut, NT, PS, 8, 16>(p, x, w, bias, y, stream);
  };
  using N2 = std::integral_constant<int, 2>;
  using N4 = std::integral_constant<int, 4>;
  if (p.nt == 2) return p.ps == 4 ? by_cp(N2{}, N4{}) : by_cp(N2{}, N2{});
  return p.ps == 4 ? by_cp(N4{}, N4{}) : by_cp(N4{}, N2{});
}

#endif  // __CUDACC__

}  // namespace ie::fused_conv
