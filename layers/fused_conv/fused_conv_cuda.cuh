// Fused Conv + bias + ReLU + MaxPool (ONNX semantics: NCHW, stride 1, symmetric zero padding, MaxPool floor mode,
// no pool padding) for ie.FusedConv. CUDA headers only, so the lab (tests/kernels/fused_conv_lab.cu) builds with
// plain nvcc and the engine includes the same kernels and tile table.
//
// Work split. A tile is G images x a band of pooled rows x a block of pooled columns; a CTA takes tiles in a
// persistent loop (grid = SMs x resident CTAs), so the packed weights and the k-offset table reach shared memory
// once per CTA. Per tile:
//   1. stage: each warp takes whole staged input rows (lane = word of the row) and writes them to shared memory,
//      zero padding included, converted to the MMA operand type on the way (two bf16/f16 per 32-bit word, or one
//      tf32/f32). Only the conv outputs the pool keeps are computed, so only their input rows are staged.
//   2. conv: implicit GEMM, M = the tile's conv outputs (pixels), N = output channels padded to 8, K = c*r*rp
//      (rp = r rounded up to whole words; the padded taps carry zero weights), padded to whole MMA k-steps.
//      Each warp owns MT m16 tiles x all NT n8 tiles and runs the whole K loop, accumulating in fp32 registers.
//      The im2col happens only inside the A-fragment loads: A(pixel, k-word) = s_in[pixel_word + kofs[k-word]];
//      a bf16 word holds taps kx, kx+1 of one input row, so it is the element pair the fragment wants in one
//      32-bit LDS. The staged word at column x holds elements x and x+1 ("pair-expanded": twice the elements, but
//      every pair is one aligned load whatever the pixel's column parity).
//   3. epilogue: accumulators -> fp32 conv tile in shared memory (channel-major, stride = 4 mod 16 words so the
//      C-fragment stores hit 32 distinct banks); then every thread takes pooled outputs (consecutive threads,
//      consecutive columns: coalesced NCHW stores), max over the window, + bias, ReLU, convert, store.
//      max(relu(v + b)) == relu(max(v) + b) exactly (rounding is monotonic), so bias and ReLU run after the pool.
// Variants: `mma` (m16n8k16 bf16 or f16 operands), `tf32` (m16n8k8, cvt.rna on load; same code, one element per
// word), `ffma` (strict fp32 direct convolution: a warp owns 4 conv rows x 32 columns x 4 channels, each lane a
// 1x4 row segment x 4 channels with a sliding window of inputs; same staging and epilogue).
// Access widths: 32-bit LDS for A, 64-bit LDS for B (the packed layout is per lane), 128-bit copies for weights,
// element-wide coalesced global loads (conversion on load rules out cp.async), element-wide coalesced stores.
// Every index function below is __host__ __device__: the lab replays them on the CPU (`--emulate`) against the
// PTX ISA fragment tables, without a GPU.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>

#include "layers/common/launch_limits.cuh"
#include "layers/common/mma_sync.cuh"

// Unrolling hint that host compilers (the engine's .cpp files use the planning and packing below) do not warn on.
#ifdef __CUDACC__
#define FUSED_CONV_UNROLL _Pragma("unroll")
#else
#define FUSED_CONV_UNROLL
#endif

namespace ie::fused_conv {

// ---- shapes and the supported range ------------------------------------------------------------------------

struct ConvPoolShape {
  int n, c, h, w;                // input NCHW
  int k;                         // output channels
  int r;                         // square kernel r x r, stride 1, no dilation
  int pad;                       // symmetric zero padding
  int pool_window, pool_stride;  // pool_window 0 = no pool
};

__host__ __device__ inline int conv_out_size(int in, int r, int pad) { return in + 2 * pad - r + 1; }
// ONNX MaxPool, ceil_mode 0, no pool padding; window 0 means no pool.
__host__ __device__ inline int pool_out_size(int in, int window, int stride) {
  return window == 0 ? in : (in < window ? 0 : (in - window) / stride + 1);
}
inline int pooled_h(const ConvPoolShape& s) {
  return pool_out_size(conv_out_size(s.h, s.r, s.pad), s.pool_window, s.pool_stride);
}
inline int pooled_w(const ConvPoolShape& s) {
  return pool_out_size(conv_out_size(s.w, s.r, s.pad), s.pool_window, s.pool_stride);
}
// Conv rows (cols) the pool reads, the only ones computed: conv2 of the conv net keeps 32 of 34.
inline int kept_conv_rows(const ConvPoolShape& s) {
  return s.pool_window ? (pooled_h(s) - 1) * s.pool_stride + s.pool_window : conv_out_size(s.h, s.r, s.pad);
}
inline int kept_conv_cols(const ConvPoolShape& s) {
  return s.pool_window ? (pooled_w(s) - 1) * s.pool_stride + s.pool_window : conv_out_size(s.w, s.r, s.pad);
}

enum class Variant { kFfma, kTf32, kMmaBf16, kMmaF16 };

// ---- tile configurations (the autotuning table) ------------------------------------------------------------
// kWarps per CTA; kMTiles m16 tiles per warp pass (mma, tf32); kTargetPixels conv outputs per tile (the planner
// picks band height, column block and images per tile from it, then shrinks the tile until shared memory fits).

// kUnrollRows (ffma only): the loop along a kernel row unrolled for r = 3, 5, 7 (ffma_block<R>); more registers (85
// against 64), so fewer CTAs per SM: faster with several input channels, slower with one (see the lab).
struct ConvTileSmall {
  static constexpr const char* kName = "w4_m2_px512";
  static constexpr int kWarps = 4, kMTiles = 2, kTargetPixels = 512;
  static constexpr bool kUnrollRows = false;
};
struct ConvTileLarge {
  static constexpr const char* kName = "w8_m4_px1024";
  static constexpr int kWarps = 8, kMTiles = 4, kTargetPixels = 1024;
  static constexpr bool kUnrollRows = false;
};
struct ConvTileSmallRows : ConvTileSmall {
  static constexpr const char* kName = "w4_m2_px512_rows";
  static constexpr bool kUnrollRows = true;
};
struct ConvTileLargeRows : ConvTileLarge {
  static constexpr const char* kName = "w8_m4_px1024_rows";
  static constexpr bool kUnrollRows = true;
};

constexpr int kMaxTileCols = 128;          // conv columns per tile; wider images get column blocks
constexpr int kDefaultSmemLimit = 232448;  // H100/H200 opt-in shared memory per block

// ---- the tile plan: every size the kernels and the emulation index with ------------------------------------

struct TilePlan {
  int n, c, h, w, k, r, pad, win, ps;               // win = ps = 1 without a pool
  int oh, ow, ph, pw;                               // conv and pooled output sizes
  int e;                                            // elements per 32-bit staged word: 2 (bf16, f16) or 1 (tf32, f32)
  int rp;                                           // kernel row padded to whole words
  int kchunks;                                      // MMA k-steps of 8 words (16 bf16 taps or 8 tf32 taps)
  int np;                                           // mma: n8 tiles (1, 2, 4, 8); ffma: channels padded to 4
  int w_in_smem;                                    // packed weights copied to shared memory (else read through L1)
  int g, pb, pcb;                                   // images, pooled rows, pooled cols per tile
  int crb, cwk;                                     // conv rows, cols per tile
  int irb, ws;                                      // staged input rows, words per staged row
  int plane, img_words;                             // words per staged channel, per staged image
  int pixels, mtiles;                               // conv outputs per tile, m16 tiles
  int ct_stride;                                    // floats per channel of the conv tile
  int vpool;                                        // column kernel: conv rows max-pooled before the conv tile
  int tiles_y, tiles_x, tiles;                      // band and column-block counts, total tiles
  int off_w, off_kofs, off_in, off_ct, smem_bytes;  // shared-memory layout in bytes
};

__host__ __device__ inline int imin(int a, int b) { return a < b ? a : b; }
inline int ceil_div(int a, int b) { return (a + b - 1) / b; }
inline int round_up(int a, int b) { return ceil_div(a, b) * b; }
inline int nt_for(int k) {  // n8 tiles, rounded to a power of two to bound the kernel instantiations
  const int nt = ceil_div(k, 8);
  return nt <= 1 ? 1 : nt <= 2 ? 2 : nt <= 4 ? 4 : 8;
}

inline void size_tiles(TilePlan& p, bool mma, int g, int pb, int pcb) {
  p.g = g, p.pb = pb, p.pcb = pcb;
  p.crb = (pb - 1) * p.ps + p.win;
  p.cwk = (pcb - 1) * p.ps + p.win;
  p.irb = p.crb + p.r - 1;
  // mma: highest word read is col cwk-1 + tap rp-e. ffma: lanes cover whole 32-column blocks and read 3 + r - 1
  // past their first column; an odd row length puts a warp's 4 rows in 4 distinct bank quarters.
  p.ws = mma ? p.cwk + p.rp - p.e : (round_up(p.cwk, 32) + p.r - 1) | 1;
  p.plane = p.irb * p.ws;
  p.img_words = p.c * p.plane;
  p.pixels = g * p.crb * p.cwk;
  p.mtiles = ceil_div(p.pixels, 16);
  p.ct_stride = round_up(p.pixels, 16) + 4;
  p.tiles_y = ceil_div(p.ph, pb);
  p.tiles_x = ceil_div(p.pw, pcb);
  p.tiles = ceil_div(p.n, g) * p.tiles_y * p.tiles_x;
  const int w_bytes = mma && p.w_in_smem ? p.kchunks * p.np * 32 * 8 : 0;
  p.off_w = 0;
  p.off_kofs = w_bytes;
  p.off_in = round_up(p.off_kofs + (mma ? p.kchunks * 4 * 8 : 0), 16);
  p.off_ct = round_up(p.off_in + g * p.img_words * 4, 16);
  p.smem_bytes = round_up(p.off_ct + p.k * p.ct_stride * 4, 16);
}

// The shape's sizes in either kernel's plan: input, kernel, padding, pool (win = ps = 1 without a pool), and
// the conv and pooled output sizes.
template <class Plan>
inline void set_conv_sizes(const ConvPoolShape& s, Plan& p) {
  p.n = s.n, p.c = s.c, p.h = s.h, p.w = s.w, p.k = s.k, p.r = s.r, p.pad = s.pad;
  p.win = s.pool_window ? s.pool_window : 1;
  p.ps = s.pool_window ? s.pool_stride : 1;
  p.oh = conv_out_size(s.h, s.r, s.pad), p.ow = conv_out_size(s.w, s.r, s.pad);
  p.ph = pool_out_size(p.oh, p.win, p.ps), p.pw = pool_out_size(p.ow, p.win, p.ps);
}

// A tile's images, pooled rows and pooled columns.
struct TileSize {
  int g, pb, pcb;
};

// The first guess for a tile of about target_pixels conv outputs: every pooled column (up to kMaxTileCols conv
// columns), as many pooled rows as the target allows (preferring, within row_multiple more, a count whose conv
// rows are a multiple of row_multiple), and several whole images when one image is below the target.
inline TileSize first_tile(int n, int ph, int pw, int win, int ps, int target_pixels, int row_multiple) {
  TileSize t;
  t.pcb = pw;
  if ((t.pcb - 1) * ps + win > kMaxTileCols) t.pcb = std::max(1, (kMaxTileCols - win) / ps + 1);
  const int cwk = (t.pcb - 1) * ps + win;
  t.pb = std::clamp(target_pixels / (cwk * ps), 1, ph);
  for (int cand = t.pb; row_multiple > 1 && cand <= std::min(ph, t.pb + row_multiple); ++cand)
    if (((cand - 1) * ps + win) % row_multiple == 0) {
      t.pb = cand;
      break;
    }
  t.g = 1;
  if (t.pb == ph && t.pcb == pw) t.g = std::clamp(target_pixels / (((ph - 1) * ps + win) * cwk), 1, n);
  return t;
}

// Halves the tile (images first, then pooled rows, then columns) until bytes(t) fits in smem_limit; false with
// the reason when even one pooled output does not fit. bytes(t) also leaves the plan sized for t.
template <class BytesFn>
inline bool shrink_to_fit(TileSize& t, int smem_limit, BytesFn bytes, std::string* why) {
  for (;;) {
    const int need = bytes(t);
    if (need <= smem_limit) return true;
    if (t.g > 1) {
      t.g = (t.g + 1) / 2;
    } else if (t.pb > 1) {
      t.pb = (t.pb + 1) / 2;
    } else if (t.pcb > 1) {
      t.pcb = (t.pcb + 1) / 2;
    } else {
      if (why) *why = "one pooled output's tile needs " + std::to_string(need) + " bytes of shared memory";
      return false;
    }
  }
}

// The tile of about target_pixels conv outputs (first_tile), halved until size(p, tile) plans a tile that fits in
// smem_limit bytes, with 32-bit tile indices; false with the reason otherwise. p holds the conv sizes and is left
// planned for the tile. Shared by the pixels-on-M kernel's plan and the column kernel's.
template <class SizeFn>
inline bool fit_tile(TilePlan& p, int target_pixels, int row_multiple, int smem_limit, SizeFn size, std::string* why) {
  TileSize ts = first_tile(p.n, p.ph, p.pw, p.win, p.ps, target_pixels, row_multiple);
  if (!shrink_to_fit(
          ts, smem_limit,
          [&](const TileSize& t) {
            size(p, t);
            return p.smem_bytes;
          },
          why))
    return false;
  if (static_cast<long long>(ceil_div(p.n, p.g)) * p.tiles_y * p.tiles_x > (1LL << 31) - 1) {
    if (why) *why = "too many tiles for 32-bit tile indices";
    return false;
  }
  return true;
}

// Picks the tile for a shape, variant and configuration; false (with the reason) when even one pooled output
// per tile does not fit in `smem_limit` bytes.
inline bool make_plan(const ConvPoolShape& s, Variant v, int target_pixels, int smem_limit, TilePlan* out,
                      std::string* why) {
  TilePlan p{};
  set_conv_sizes(s, p);
  const bool mma = v != Variant::kFfma;
  p.e = (v == Variant::kMmaBf16 || v == Variant::kMmaF16) ? 2 : 1;
  p.rp = round_up(s.r, p.e);
  p.kchunks = mma ? ceil_div(s.c * s.r * p.rp, 8 * p.e) : 0;
  p.np = mma ? nt_for(s.k) : round_up(s.k, 4);
  // Weights take at most half of shared memory; larger ones (tf32, c=16, r=7, k=64: 200 KB) stay in L2/L1.
  p.w_in_smem = mma && p.kchunks * p.np * 32 * 8 <= smem_limit / 2;
  auto size = [mma](TilePlan& q, const TileSize& t) { size_tiles(q, mma, t.g, t.pb, t.pcb); };
  if (!fit_tile(p, target_pixels, 1, smem_limit, size, why)) return false;
  *out = p;
  return true;
}

// The supported range. Stride 1 and no dilation are implied by the shape.
inline bool supported(const ConvPoolShape& s, std::string* why, int smem_limit = kDefaultSmemLimit) {
  auto no = [&](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  if (s.n < 1) return no("batch must be >= 1");
  if (s.c < 1 || s.c > 16) return no("input channels must be 1..16");
  if (s.k < 1 || s.k > 64) return no("output channels must be 1..64");
  if (s.r < 3 || s.r > 7) return no("kernel must be square, 3x3 .. 7x7");
  if (s.pad < 0 || s.pad > s.r / 2) return no("padding must be symmetric, 0 .. r/2");
  if (s.h < 1 || s.w < 1 || conv_out_size(s.h, s.r, s.pad) < 1 || conv_out_size(s.w, s.r, s.pad) < 1)
    return no("the image is smaller than the kernel");
  if (s.pool_window != 0) {
    if (s.pool_window < 1 || s.pool_stride < 1 || s.pool_stride > s.pool_window)
      return no("pool needs window >= stride >= 1");
    if (pooled_h(s) < 1 || pooled_w(s) < 1) return no("the conv output is smaller than the pool window");
  }
  TilePlan p;
  for (Variant v : {Variant::kFfma, Variant::kTf32, Variant::kMmaBf16, Variant::kMmaF16})
    if (!make_plan(s, v, 1, smem_limit, &p, why)) return false;
  return true;
}

// ---- element types -----------------------------------------------------------------------------------------

template <class T>
__host__ __device__ inline float to_float(T v);
template <>
__host__ __device__ inline float to_float<float>(float v) {
  return v;
}
template <>
__host__ __device__ inline float to_float<__half>(__half v) {
  return __half2float(v);
}
template <>
__host__ __device__ inline float to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <class T>
__host__ __device__ inline T from_float(float v);
template <>
__host__ __device__ inline float from_float<float>(float v) {
  return v;
}
template <>
__host__ __device__ inline __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__host__ __device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

__host__ __device__ inline uint32_t bits16(__nv_bfloat16 v) { return static_cast<__nv_bfloat16_raw>(v).x; }
__host__ __device__ inline uint32_t bits16(__half v) { return static_cast<__half_raw>(v).x; }
__host__ __device__ inline uint32_t float_bits(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  return u;
}
__host__ __device__ inline float bits_float(uint32_t u) {
  float v;
  memcpy(&v, &u, 4);
  return v;
}

// fp32 -> tf32, round to nearest with ties away from zero (cvt.rna), low 13 bits cleared.
__host__ __device__ inline uint32_t tf32_rna(float v) {
#ifdef __CUDA_ARCH__
  uint32_t u;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(v));
  return u;
#else
  uint32_t u = float_bits(v);
  if ((u & 0x7f800000u) == 0x7f800000u) return (u & 0x007fffffu) ? 0x7fffe000u : u;  // NaN stays NaN, inf inf
  return (u + 0x1000u) & 0xffffe000u;
#endif
}

// Staged-word formats: how `e` input elements become one 32-bit shared-memory word, and the MMA that eats them.
// In a pair the lower index sits in the low half (as the fragment registers want it).
// Two 16-bit floats (T = __nv_bfloat16 or __half) per word, rounded to nearest even, and the m16n8k16 MMA on them.
template <class T>
struct Word16 {
  static constexpr int kE = 2;
  __host__ __device__ static uint32_t to16(float f) {
    if constexpr (std::is_same_v<T, __half>)
      return bits16(__float2half_rn(f));
    else
      return bits16(__float2bfloat16_rn(f));
  }
  __host__ __device__ static uint32_t pack(const float* v) { return to16(v[0]) | to16(v[1]) << 16; }
  static float unpack(uint32_t u, int i) {  // host: the emulation
    const auto half_bits = static_cast<unsigned short>(u >> (16 * i));
    if constexpr (std::is_same_v<T, __half>) {
      __half_raw raw;
      raw.x = half_bits;
      return __half2float(__half(raw));
    } else {
      __nv_bfloat16_raw raw;
      raw.x = half_bits;
      return __bfloat162float(__nv_bfloat16(raw));
    }
  }
#ifdef __CUDACC__
  __device__ static void mma(float (&d)[4], const uint32_t (&a)[4], uint2 b) { dev::mma_16816<T>(d, a, b.x, b.y); }
#endif
};
using WordBf16 = Word16<__nv_bfloat16>;
using WordF16 = Word16<__half>;

// tf32 mode's split products: an fp32 operand as hi + lo in bf16 (hi = bf16(x), lo = bf16(x - hi); x - hi is exact)
// and three m16n8k16 products, lo x hi + hi x lo + hi x hi (lo x lo, ~2^-18 relative, dropped). A product's
// relative error is then about 2^-16, 30 times under one TF32 rounding's 2^-11, for 3/2 of tf32's MMA issue per K
// (three k16 MMAs against two k8). Kernels that take it stage hi and lo words apart and hold hi and lo weights.
// One difference from fp32 remains at the top of the range: a value above bf16's largest finite (about 3.39e38,
// below fp32's 3.40e38) has an infinite hi part.
struct WordBf16x3 : Word16<__nv_bfloat16> {
  // The low part of v given its rounded high part h: zero where h is not finite (a NaN or inf stays in hi alone).
  __host__ __device__ static float low_part(float v, float h) {
    return (float_bits(h) & 0x7f800000u) == 0x7f800000u ? 0.f : v - h;
  }
  // hi and lo words of the element pair v (hi as WordBf16::pack lays it out).
  __host__ __device__ static void split(const float* v, uint32_t* hi, uint32_t* lo) {
    *hi = pack(v);
    const float r[2] = {low_part(v[0], bits_float(*hi << 16)), low_part(v[1], bits_float(*hi & 0xffff0000u))};
    *lo = pack(r);
  }
};
template <class Word>
constexpr bool kSplitWord = std::is_same_v<Word, WordBf16x3>;

// The staged word of Word::kE elements f, and for split words its lo word (else 0): what every staging writes.
template <class Word>
__host__ __device__ inline uint2 operand_words(const float* f) {
  uint2 r = make_uint2(0u, 0u);
  if constexpr (kSplitWord<Word>)
    Word::split(f, &r.x, &r.y);
  else
    r.x = Word::pack(f);
  return r;
}

struct WordTf32 {
  static constexpr int kE = 1;
  __host__ __device__ static uint32_t pack(const float* v) { return tf32_rna(v[0]); }
  static float unpack(uint32_t u, int) { return bits_float(u & 0xffffe000u); }
#ifdef __CUDACC__
  __device__ static void mma(float (&d)[4], const uint32_t (&a)[4], uint2 b) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
  }
#endif
};

struct WordF32 {  // ffma: plain fp32
  static constexpr int kE = 1;
  __host__ __device__ static uint32_t pack(const float* v) { return float_bits(v[0]); }
  static float unpack(uint32_t u, int) { return bits_float(u); }
};

// max that keeps NaN (fmaxf drops it), and ReLU that keeps it: a NaN conv value reaches the output as it does
// through the unfused Conv, Relu and MaxPool.
__host__ __device__ inline float nan_max(float a, float b) {
#ifdef __CUDA_ARCH__
  float d;  // one FMNMX.NAN (sm_80+)
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
#else
  return (a > b || a != a) ? a : b;
#endif
}
__host__ __device__ inline float nan_relu(float v) { return nan_max(v, 0.f); }

// ---- index functions shared by the kernels and the emulation -----------------------------------------------

struct TileCoord {
  int n0, ty, tx;  // first image, band, column block
  int y0, x0;      // input row and column of staged row 0, word 0 (may be negative: zero padding)
};
__host__ __device__ inline TileCoord tile_coord(const TilePlan& p, int tile) {
  TileCoord t;
  t.tx = tile % p.tiles_x;
  const int rest = tile / p.tiles_x;
  t.ty = rest % p.tiles_y;
  t.n0 = rest / p.tiles_y * p.g;
  t.y0 = t.ty * p.pb * p.ps - p.pad;
  t.x0 = t.tx * p.pcb * p.ps - p.pad;
  return t;
}

// One staged row, lanes over words: word xw holds elements x0+xw .. x0+xw+e-1 of the input row at `src`, zero
// outside 0 .. w-1 and everywhere when !row_ok (padding rows, images past the batch); split words (WordBf16x3)
// put the lo word lo_off words further.
template <class Word, class TIn>
__host__ __device__ inline void stage_row_words(const TIn* __restrict__ src, bool row_ok, int w, int x0,
                                                uint32_t* __restrict__ dst, int ws, int lane, int lo_off = 0) {
  for (int xw = lane; xw < ws; xw += 32) {
    float v[Word::kE];
    FUSED_CONV_UNROLL
    for (int i = 0; i < Word::kE; ++i) {
      const int gx = x0 + xw + i;
      v[i] = row_ok && gx >= 0 && gx < w ? to_float(src[gx]) : 0.f;
    }
    const uint2 wd = operand_words<Word>(v);
    dst[xw] = wd.x;
    if constexpr (kSplitWord<Word>) dst[xw + lo_off] = wd.y;  // the lo word lo_off words further
  }
}

// Stage the tile's input rows: staged row (gi, ci, ly) word xw holds elements x0+xw .. x0+xw+e-1 of input row
// y0+ly, zero outside the image (padding) and past the batch. Warps take rows, lanes take words.
template <class Word, class TIn>
__host__ __device__ inline void stage_input(const TilePlan& p, const TIn* __restrict__ x, const TileCoord& t,
                                            uint32_t* __restrict__ s_in, int warp, int nwarps, int lane) {
  const int rows = p.g * p.c * p.irb;
  for (int row = warp; row < rows; row += nwarps) {
    const int ly = row % p.irb, gc = row / p.irb;
    const int ci = gc % p.c, img = t.n0 + gc / p.c, y = t.y0 + ly;
    const bool row_ok = img < p.n && y >= 0 && y < p.h;
    const TIn* src = row_ok ? x + ((static_cast<size_t>(img) * p.c + ci) * p.h + y) * p.w : x;
    uint32_t* dst = s_in + static_cast<size_t>(row) * p.ws;
    stage_row_words<Word>(src, row_ok, p.w, t.x0, dst, p.ws, lane);
  }
}

// Word offset of tile pixel px (image gi, conv row, conv col of the tile) in the staged input.
__host__ __device__ inline int pixel_word(const TilePlan& p, int px) {
  const int per_img = p.crb * p.cwk;
  const int gi = px / per_img, rem = px - gi * per_img;
  const int row = rem / p.cwk, col = rem - row * p.cwk;
  return gi * p.img_words + row * p.ws + col;
}

// K laid out as (input channel, row, tap): logical k = (ci * rows + j) * rp + kx; word kw holds k = e*kw ..
// e*kw+e-1 (one input row, taps kx .. kx+e-1). Offset of that word from a pixel's word in the staged tile (planes
// of `plane` words, rows of `ws`); 0 for the K padding (its weights are zero). Both kernels' im2col in one place.
__host__ __device__ inline int tap_word_offset(int kw, int e, int c, int rows, int rp, int plane, int ws) {
  const int k = kw * e;
  if (k >= c * rows * rp) return 0;
  const int ci = k / (rows * rp), rem = k - ci * rows * rp;
  const int j = rem / rp, kx = rem - j * rp;
  return ci * plane + j * ws + kx;
}

// Rows = the kernel's r rows (pixels on M: one conv row per pixel).
__host__ __device__ inline int kword_offset(const TilePlan& p, int kw) {
  return tap_word_offset(kw, p.e, p.c, p.r, p.rp, p.plane, p.ws);
}

// The thread with threadID_in_group t owns k-words t and t+4 of each k-step: A registers {a0,a1} and {a4,a5}
// (bf16: k columns 2t,2t+1 and 2t+8,2t+9), or a0 and a2 (tf32: columns t and t+4). One int2 per (k-step, t).
__host__ __device__ inline int2 kofs_entry(const TilePlan& p, int kc, int t) {
  return make_int2(kword_offset(p, kc * 8 + t), kword_offset(p, kc * 8 + t + 4));
}

// A-fragment word indices for a lane: rows groupID (pixel lo) and groupID + 8 (pixel hi) of the m16 tile, in
// register order {row g k-word t, row g+8 k-word t, row g k-word t+4, row g+8 k-word t+4}.
__host__ __device__ inline void a_frag_index(int lo, int hi, int2 ko, int (&idx)[4]) {
  idx[0] = lo + ko.x, idx[1] = hi + ko.x, idx[2] = lo + ko.y, idx[3] = hi + ko.y;
}

// Staged words of the two pixels a lane feeds into m16 tile `mtile`; rows past the tile repeat its last pixel
// (their results are dropped in store_c).
__host__ __device__ inline void lane_pixels(const TilePlan& p, int mtile, int lane, int* lo, int* hi) {
  const int m = mtile * 16 + (lane >> 2);
  *lo = pixel_word(p, imin(m, p.pixels - 1));
  *hi = pixel_word(p, imin(m + 8, p.pixels - 1));
}

// Packed B (weights) index: one uint2 per (k-step, n8 tile, lane) = the lane's {b0b1, b2b3} (bf16) or {b0, b1}.
__host__ __device__ inline int wpk_index(int kc, int j, int lane, int nt) { return (kc * nt + j) * 32 + lane; }

// Accumulator c_i of n8 tile j: pixel m0 + groupID (+8 for c2, c3), channel 8j + 2*threadID_in_group (+1 for
// c1, c3). Pixels past the tile and padded channels are dropped.
__host__ __device__ inline void store_c(const TilePlan& p, float* __restrict__ ct, int m0, int j, int lane,
                                        const float (&c)[4]) {
  FUSED_CONV_UNROLL
  for (int i = 0; i < 4; ++i) {
    const int px = m0 + (lane >> 2) + 8 * (i >> 1);
    const int ch = j * 8 + 2 * (lane & 3) + (i & 1);
    if (px < p.pixels && ch < p.k) ct[ch * p.ct_stride + px] = c[i];
  }
}

// ffma: warp block `blk` = 4 tile rows x 32 columns x 4 channels; the lane takes row lane/8 and columns
// 4*(lane%8) .. +3, for channels 4q .. 4q+3. Inputs slide through 4 registers along kx; weights are float4 loads
// of [ci][ky][kx][np] (all lanes the same address: broadcast).
// R > 0: the kernel size known at compile time (p.r == R), so that the loop along a kernel row unrolls: the sliding
// window is renamed registers instead of moves, and the row's weight loads are issued together.
template <int R = 0>
__host__ __device__ inline void ffma_block(const TilePlan& p, const float* __restrict__ s_in,
                                           const float4* __restrict__ w4, float* __restrict__ ct, int blk, int lane) {
  const int r = R > 0 ? R : p.r;
  const int rows = p.g * p.crb, row_blocks = (rows + 3) / 4, col_blocks = (p.cwk + 31) / 32;
  const int bx = blk % col_blocks, rest = blk / col_blocks;
  const int by = rest % row_blocks, q = rest / row_blocks;
  const int tr = by * 4 + (lane >> 3), col0 = bx * 32 + (lane & 7) * 4;
  const int trc = imin(tr, rows - 1), gi = trc / p.crb, row = trc - gi * p.crb;
  const float* src = s_in + gi * p.img_words + row * p.ws + col0;
  const int nq = p.np / 4;
  float acc[4][4] = {};
  for (int ci = 0; ci < p.c; ++ci) {
    for (int ky = 0; ky < r; ++ky) {  // not unrolled: all the kernel's weights would stay live (148 registers)
      const float* in = src + ci * p.plane + ky * p.ws;
      const float4* wp = w4 + (ci * r + ky) * r * nq + q;
      float x0 = in[0], x1 = in[1], x2 = in[2];
      FUSED_CONV_UNROLL
      for (int kx = 0; kx < r; ++kx) {
        const float x3 = in[kx + 3];
#ifdef __CUDA_ARCH__
        const float4 wv = __ldg(wp + kx * nq);
#else
        const float4 wv = wp[kx * nq];
#endif
        const float xs[4] = {x0, x1, x2, x3};
        FUSED_CONV_UNROLL
        for (int i = 0; i < 4; ++i) {
          acc[i][0] = fmaf(xs[i], wv.x, acc[i][0]);
          acc[i][1] = fmaf(xs[i], wv.y, acc[i][1]);
          acc[i][2] = fmaf(xs[i], wv.z, acc[i][2]);
          acc[i][3] = fmaf(xs[i], wv.w, acc[i][3]);
        }
        x0 = x1, x1 = x2, x2 = x3;
      }
    }
  }
  if (tr >= rows) return;
  FUSED_CONV_UNROLL
  for (int i = 0; i < 4; ++i) FUSED_CONV_UNROLL
  for (int j = 0; j < 4; ++j)
    if (col0 + i < p.cwk && q * 4 + j < p.k) ct[(q * 4 + j) * p.ct_stride + tr * p.cwk + col0 + i] = acc[i][j];
}

// One pooled output from a rows x cols window of fp32 conv values (rows `stride` floats apart): max, + bias, ReLU.
template <class TOut>
__host__ __device__ inline void pool_window(const float* __restrict__ src, int stride, int rows, int cols, float bias,
                                            TOut* __restrict__ dst) {
  float m = src[0];
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m = nan_max(m, src[i * stride + j]);
  *dst = from_float<TOut>(nan_relu(m + bias));
}

// Epilogue: pooled outputs of the tile from the fp32 conv tile; bias and ReLU after the max (see the top). With
// p.vpool (the column kernel) the tile holds rows pooled already, pb per image: the max runs along the row alone.
template <class TOut>
__host__ __device__ inline void pool_store(const TilePlan& p, const float* __restrict__ ct,
                                           const float* __restrict__ bias, TOut* __restrict__ y, const TileCoord& t,
                                           int tid, int nthreads) {
  const int total = p.g * p.k * p.pb * p.pcb;
  for (int idx = tid; idx < total; idx += nthreads) {
    const int pc = idx % p.pcb, r1 = idx / p.pcb;
    const int pr = r1 % p.pb, r2 = r1 / p.pb;
    const int ch = r2 % p.k, gi = r2 / p.k;
    const int img = t.n0 + gi, prow = t.ty * p.pb + pr, pcol = t.tx * p.pcb + pc;
    if (img >= p.n || prow >= p.ph || pcol >= p.pw) continue;
    const int row = p.vpool ? gi * p.pb + pr : gi * p.crb + pr * p.ps;
    pool_window(ct + ch * p.ct_stride + row * p.cwk + pc * p.ps, p.cwk, p.vpool ? 1 : p.win, p.win,
                bias ? bias[ch] : 0.f, y + ((static_cast<size_t>(img) * p.k + ch) * p.ph + prow) * p.pw + pcol);
  }
}

// ---- weight packing (host, once per engine) ----------------------------------------------------------------

// Weight of logical k (see kword_offset) and channel n, zero in the padding. w is ONNX's fp32 [k][c][r][r].
inline float logical_weight(const TilePlan& p, const float* w, int k, int n) {
  if (n >= p.k || k >= p.c * p.r * p.rp) return 0.f;
  const int ci = k / (p.r * p.rp), rem = k - ci * p.r * p.rp;
  const int ky = rem / p.rp, kx = rem - ky * p.rp;
  return kx < p.r ? w[((static_cast<size_t>(n) * p.c + ci) * p.r + ky) * p.r + kx] : 0.f;
}

// The packed layout depends on the shape and variant only, not on the tile.
inline TilePlan weight_plan(const ConvPoolShape& s, Variant v) {
  TilePlan p{};
  std::string why;
  make_plan(s, v, 1, 1 << 30, &p, &why);
  return p;
}

inline size_t packed_weight_bytes(const ConvPoolShape& s, Variant v) {
  const TilePlan p = weight_plan(s, v);
  if (v == Variant::kFfma) return static_cast<size_t>(s.c) * s.r * s.r * p.np * 4;
  return static_cast<size_t>(p.kchunks) * p.np * 32 * 8;
}

template <class Word>
inline void pack_weights_words(const TilePlan& p, const float* w, uint2* out) {
  for (int kc = 0; kc < p.kchunks; ++kc)
    for (int j = 0; j < p.np; ++j)
      for (int lane = 0; lane < 32; ++lane) {
        const int n = j * 8 + (lane >> 2), t = lane & 3;
        float lo[2] = {0.f, 0.f}, hi[2] = {0.f, 0.f};  // k-words t and t+4 of this k-step, as in kofs_entry
        for (int i = 0; i < Word::kE; ++i) {
          lo[i] = logical_weight(p, w, (kc * 8 + t) * Word::kE + i, n);
          hi[i] = logical_weight(p, w, (kc * 8 + t + 4) * Word::kE + i, n);
        }
        out[wpk_index(kc, j, lane, p.np)] = make_uint2(Word::pack(lo), Word::pack(hi));
      }
}

// Writes packed_weight_bytes(s, variant) bytes to `out` (host memory; upload it 16-byte aligned).
inline void pack_weights(const ConvPoolShape& s, Variant v, const float* w, void* out) {
  const TilePlan p = weight_plan(s, v);
  switch (v) {
    case Variant::kFfma: {  // [ci][ky][kx][np], channels padded with zeros
      float* o = static_cast<float*>(out);
      const size_t taps = static_cast<size_t>(s.c) * s.r * s.r;
      for (size_t t = 0; t < taps; ++t)
        for (int n = 0; n < p.np; ++n) o[t * p.np + n] = n < s.k ? w[n * taps + t] : 0.f;
      break;
    }
    case Variant::kTf32:
      pack_weights_words<WordTf32>(p, w, static_cast<uint2*>(out));
      break;
    case Variant::kMmaBf16:
      pack_weights_words<WordBf16>(p, w, static_cast<uint2*>(out));
      break;
    case Variant::kMmaF16:
      pack_weights_words<WordF16>(p, w, static_cast<uint2*>(out));
      break;
  }
}
inline void pack_weights_ffma(const ConvPoolShape& s, const float* w, void* out) {
  pack_weights(s, Variant::kFfma, w, out);
}
inline void pack_weights_tf32(const ConvPoolShape& s, const float* w, void* out) {
  pack_weights(s, Variant::kTf32, w, out);
}
template <class MmaT>
inline void pack_weights_mma(const ConvPoolShape& s, const float* w, void* out) {
  pack_weights(s, std::is_same_v<MmaT, __half> ? Variant::kMmaF16 : Variant::kMmaBf16, w, out);
}

// ---- kernels -----------------------------------------------------------------------------------------------
#ifdef __CUDACC__

// One warp pass: MT m16 tiles x NT n8 tiles over the whole K. kWSmem: B from shared memory, else through L1.
template <class Word, int MT, int NT, bool kWSmem>
__device__ __forceinline__ void mma_pass(const TilePlan& p, const uint32_t* __restrict__ s_in,
                                         const uint2* __restrict__ wsrc, const int2* __restrict__ s_kofs,
                                         float* __restrict__ s_ct, int pass, int lane) {
  int lo[MT], hi[MT];
  FUSED_CONV_UNROLL
  for (int mt = 0; mt < MT; ++mt) lane_pixels(p, pass * MT + mt, lane, &lo[mt], &hi[mt]);
  float acc[MT][NT][4];
  FUSED_CONV_UNROLL
  for (int mt = 0; mt < MT; ++mt) FUSED_CONV_UNROLL
  for (int j = 0; j < NT; ++j) acc[mt][j][0] = acc[mt][j][1] = acc[mt][j][2] = acc[mt][j][3] = 0.f;
  for (int kc = 0; kc < p.kchunks; ++kc) {
    const int2 ko = s_kofs[kc * 4 + (lane & 3)];
    uint2 b[NT];
    FUSED_CONV_UNROLL
    for (int j = 0; j < NT; ++j) {
      if constexpr (kWSmem)
        b[j] = wsrc[wpk_index(kc, j, lane, NT)];
      else
        b[j] = __ldg(wsrc + wpk_index(kc, j, lane, NT));
    }
    FUSED_CONV_UNROLL
    for (int mt = 0; mt < MT; ++mt) {
      int idx[4];
      a_frag_index(lo[mt], hi[mt], ko, idx);
      const uint32_t a[4] = {s_in[idx[0]], s_in[idx[1]], s_in[idx[2]], s_in[idx[3]]};
      FUSED_CONV_UNROLL
      for (int j = 0; j < NT; ++j) Word::mma(acc[mt][j], a, b[j]);
    }
  }
  FUSED_CONV_UNROLL
  for (int mt = 0; mt < MT; ++mt) FUSED_CONV_UNROLL
  for (int j = 0; j < NT; ++j) store_c(p, s_ct, (pass * MT + mt) * 16, j, lane, acc[mt][j]);
}

template <class Cfg, class Word, class TIn, class TOut, int NT>
__global__ void __launch_bounds__(Cfg::kWarps * 32)
    fused_conv_mma_kernel(const TilePlan p, const TIn* __restrict__ x, const uint2* __restrict__ wpk,
                          const float* __restrict__ bias, TOut* __restrict__ y) {
  extern __shared__ __align__(16) unsigned char smem[];
  uint2* s_w = reinterpret_cast<uint2*>(smem + p.off_w);
  int2* s_kofs = reinterpret_cast<int2*>(smem + p.off_kofs);
  uint32_t* s_in = reinterpret_cast<uint32_t*>(smem + p.off_in);
  float* s_ct = reinterpret_cast<float*>(smem + p.off_ct);
  constexpr int kThreads = Cfg::kWarps * 32;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  if (p.w_in_smem) {  // once per CTA; the first barrier below publishes it
    const uint4* src = reinterpret_cast<const uint4*>(wpk);
    uint4* dst = reinterpret_cast<uint4*>(s_w);
    for (int i = tid; i < p.kchunks * NT * 16; i += kThreads) dst[i] = __ldg(src + i);
  }
  for (int i = tid; i < p.kchunks * 4; i += kThreads) s_kofs[i] = kofs_entry(p, i >> 2, i & 3);

  const int passes = (p.mtiles + Cfg::kMTiles - 1) / Cfg::kMTiles;
  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    const TileCoord t = tile_coord(p, tile);
    stage_input<Word>(p, x, t, s_in, warp, Cfg::kWarps, lane);  // the previous pool_store reads s_ct only
    __syncthreads();
    for (int pass = warp; pass < passes; pass += Cfg::kWarps) {
      if (p.w_in_smem)
        mma_pass<Word, Cfg::kMTiles, NT, true>(p, s_in, s_w, s_kofs, s_ct, pass, lane);
      else
        mma_pass<Word, Cfg::kMTiles, NT, false>(p, s_in, wpk, s_kofs, s_ct, pass, lane);
    }
    __syncthreads();
    pool_store(p, s_ct, bias, y, t, tid, kThreads);  // s_ct is next written after the next barrier
  }
}

// The explicit 1 keeps ptxas from trading a spill for occupancy (seen with 256 threads: 48 registers, 8 bytes).
template <class Cfg, class TIn, class TOut>
__global__ void __launch_bounds__(Cfg::kWarps * 32, 1)
    fused_conv_ffma_kernel(const TilePlan p, const TIn* __restrict__ x, const float4* __restrict__ w4,
                           const float* __restrict__ bias, TOut* __restrict__ y) {
  extern __shared__ __align__(16) unsigned char smem[];
  uint32_t* s_in = reinterpret_cast<uint32_t*>(smem + p.off_in);
  float* s_ct = reinterpret_cast<float*>(smem + p.off_ct);
  constexpr int kThreads = Cfg::kWarps * 32;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int blocks = (p.np / 4) * ((p.g * p.crb + 3) / 4) * ((p.cwk + 31) / 32);
  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    const TileCoord t = tile_coord(p, tile);
    stage_input<WordF32>(p, x, t, s_in, warp, Cfg::kWarps, lane);
    __syncthreads();
    for (int b = warp; b < blocks; b += Cfg::kWarps) {
      const float* in = reinterpret_cast<const float*>(s_in);
      if (Cfg::kUnrollRows && p.r == 7)
        ffma_block<7>(p, in, w4, s_ct, b, lane);
      else if (Cfg::kUnrollRows && p.r == 5)
        ffma_block<5>(p, in, w4, s_ct, b, lane);
      else if (Cfg::kUnrollRows && p.r == 3)
        ffma_block<3>(p, in, w4, s_ct, b, lane);
      else
        ffma_block(p, in, w4, s_ct, b, lane);
    }
    __syncthreads();
    pool_store(p, s_ct, bias, y, t, tid, kThreads);
  }
}

// ---- launchers: no allocation, no synchronization, everything on `stream` -----------------------------------

using dev::device_limits;
using dev::DeviceLimits;
using dev::resident_blocks;

// The CTAs of a kernel configuration the whole GPU holds at once (SMs x resident CTAs per SM): a persistent grid.
template <class Kernel>
cudaError_t resident_slots(Kernel kernel, int threads, int smem_bytes, int* slots) {
  DeviceLimits d;
  int per_sm = 0;
  cudaError_t err = device_limits(&d);
  if (err == cudaSuccess) err = resident_blocks(kernel, threads, smem_bytes, d.smem_optin, &per_sm);
  if (err != cudaSuccess) return err;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  *slots = d.sms * per_sm;
  return cudaSuccess;
}

// Grid: one CTA per tile up to the resident limit; the kernels loop over the remaining tiles.
template <class Kernel, class... Args>
cudaError_t launch_persistent(Kernel kernel, const TilePlan& p, int threads, cudaStream_t stream, Args... args) {
  int slots = 0;
  if (cudaError_t err = resident_slots(kernel, threads, p.smem_bytes, &slots); err != cudaSuccess) return err;
  kernel<<<std::min(p.tiles, slots), threads, p.smem_bytes, stream>>>(p, args...);
  return cudaGetLastError();
}

// Per launch, so it plans the one variant only: callers check supported() (which plans all four) once per shape.
inline cudaError_t plan_for_device(const ConvPoolShape& s, Variant v, int target_pixels, TilePlan* p) {
  DeviceLimits d;
  if (cudaError_t err = device_limits(&d)) return err;
  std::string why;
  if (!make_plan(s, v, target_pixels, d.smem_optin, p, &why)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

template <class Cfg, class Word, class TIn, class TOut>
cudaError_t launch_words(const ConvPoolShape& s, Variant v, const TIn* x, const void* packed_w, const float* bias,
                         TOut* y, cudaStream_t stream) {
  TilePlan p;
  if (cudaError_t err = plan_for_device(s, v, Cfg::kTargetPixels, &p)) return err;
  const uint2* w = static_cast<const uint2*>(packed_w);
  constexpr int kThreads = Cfg::kWarps * 32;
  switch (p.np) {
    case 1:
      return launch_persistent(fused_conv_mma_kernel<Cfg, Word, TIn, TOut, 1>, p, kThreads, stream, x, w, bias, y);
    case 2:
      return launch_persistent(fused_conv_mma_kernel<Cfg, Word, TIn, TOut, 2>, p, kThreads, stream, x, w, bias, y);
    case 4:
      return launch_persistent(fused_conv_mma_kernel<Cfg, Word, TIn, TOut, 4>, p, kThreads, stream, x, w, bias, y);
    case 8:
      return launch_persistent(fused_conv_mma_kernel<Cfg, Word, TIn, TOut, 8>, p, kThreads, stream, x, w, bias, y);
    default:
      return cudaErrorInvalidValue;
  }
}

// x: [n][c][h][w] TIn; packed_w: pack_weights_mma<MmaT> output on the device; bias: [k] fp32 or nullptr;
// y: [n][k][ph][pw] TOut. MmaT (__nv_bfloat16 or __half) is the operand type; accumulation is fp32.
template <class Cfg, class TIn, class TOut, class MmaT = __nv_bfloat16>
cudaError_t launch_fused_conv_mma(const ConvPoolShape& s, const TIn* x, const void* packed_w, const float* bias,
                                  TOut* y, cudaStream_t stream) {
  if constexpr (std::is_same_v<MmaT, __half>)
    return launch_words<Cfg, WordF16>(s, Variant::kMmaF16, x, packed_w, bias, y, stream);
  else
    return launch_words<Cfg, WordBf16>(s, Variant::kMmaBf16, x, packed_w, bias, y, stream);
}

template <class Cfg, class TIn, class TOut>
cudaError_t launch_fused_conv_tf32(const ConvPoolShape& s, const TIn* x, const void* packed_w, const float* bias,
                                   TOut* y, cudaStream_t stream) {
  return launch_words<Cfg, WordTf32>(s, Variant::kTf32, x, packed_w, bias, y, stream);
}

template <class Cfg, class TIn, class TOut>
cudaError_t launch_fused_conv_ffma(const ConvPoolShape& s, const TIn* x, const void* packed_w, const float* bias,
                                   TOut* y, cudaStream_t stream) {
  TilePlan p;
  if (cudaError_t err = plan_for_device(s, Variant::kFfma, Cfg::kTargetPixels, &p)) return err;
  return launch_persistent(fused_conv_ffma_kernel<Cfg, TIn, TOut>, p, Cfg::kWarps * 32, stream, x,
                           static_cast<const float4*>(packed_w), bias, y);
}

#endif  // __CUDACC__

}  // namespace ie::fused_conv
