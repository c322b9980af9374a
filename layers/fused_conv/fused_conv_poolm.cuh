// The "pool on M" fused Conv + bias + ReLU + 2x2 MaxPool kernel for few output channels (k <= 4): the M side of
// the m16n8k16 product holds the four positions of the pool window for each channel, the N side holds pooled
// pixels, K the taps of the input patch that one pooled output reads.
//
// Formulation. Pooled pixel (py, px) reads input rows 2py .. 2py + r and columns 2px .. 2px + r: an (r + 1)-square
// patch, padded to rp = r + 1 rounded up to even rows and to 8 columns (r <= 7). Row m = pos * 4 + ch of A is
// channel ch at pool position pos = dy * 2 + dx:
//   A[(dy, dx, ch)][(ci, prow, pcol)] = w[ch][ci][prow - dy][pcol - dx]   (zero outside the kernel)
// and B[(ci, prow, pcol)][n] is input (ci, 2py + prow, 2(px0 + n) + pcol). One k-step of 16 is two patch rows of 8
// taps; a lane's B registers are two aligned element pairs of a plain staged image (column 2(px0 + g) + 2t is
// even), so B needs no expanded copy, and the pool is the max over M: rows g and g + 8 of the accumulator (dy) sit
// in the lane, dx is lane bit 4 (one shuffle). The conv net's conv1 (1 -> 4 channels, 7x7, 2x2 pool): K = 64 taps
// per patch of which 49 are kernel taps per position (77% of the products useful, against 61% for the stacked
// kernel), 800 MMAs per 86x86 image against 1000, two 32-bit loads per MMA, and an epilogue of four instructions
// per output pair instead of the stacked kernel's register pool.
//
// Work split: a CTA stages one image at a time (every input channel, rounded to the operand type, zero past the
// image so that padded taps never meet garbage), then its warps take pooled rows, each row ntiles n-tiles of 8
// pooled pixels, the A fragments of every k-step in registers for the whole kernel. Persistent grid over images.
// Bulk configurations (whole images of whole 16-byte chunks): thread 0 copies the next image's raw bytes into
// shared memory by one cp.async.bulk while this one computes, and the staging is a conversion pass in shared
// memory (at batch 10000 the per-thread loads' index arithmetic and latency were a third of the kernel's time).
// tf32 mode runs the same products split (WordBf16x3: hi and lo bf16 words staged apart, three MMAs per k-step):
// one TF32 rounding of conv1's inputs and weights put the conv net past the tf32 gate, the split's do not.
// Depends on CUDA alone (tests/kernels/conv_poolm_lab.cu builds it with nvcc).
#pragma once

#include <string>
#include <type_traits>

#include "layers/common/bulk_copy.cuh"
#include "layers/fused_conv/fused_conv_stacked.cuh"

namespace ie::fused_conv {

constexpr int kPoolMMaxKSteps = 16;      // c * rp / 2 k-steps whose A fragments stay in registers
constexpr int kPoolMMaxSplitKSteps = 8;  // the same with hi and lo fragments (tf32 mode's split products)

struct PoolMPlan {
  int n, c, h, w, k, r;
  int ph, pw;       // pooled outputs
  int rp;           // patch rows, padded to even (two per k-step)
  int ksteps;       // c * rp / 2
  int ntiles;       // n-tiles of 8 pooled pixels per pooled row
  int pitch;        // staged row length in elements (even; zeros past w)
  int rows;         // staged rows per channel (zeros past h)
  int pb, bands;    // pooled rows per tile, tiles per image
  int plane_words;  // rows * pitch / 2
  int img_words;    // c * plane_words
  int tiles;        // n * bands
  int split;        // tf32 mode (WordBf16x3): hi words, then lo words from img_words on; hi, then lo weights
  int smem_bytes;
  int vec2;                   // input rows start on even elements (w even): staged by element-pair loads
  FastDiv div_wpr, div_rows;  // staged word -> staged row -> input channel
  // Bulk staging (configurations with kBulk): the next image's raw bytes land in shared memory by one bulk copy
  // while this image computes, then a pass converts them to operand words. 0 / unused without it.
  int bulk;                // the kernel stages by bulk copy (the launch clears it for an unaligned input)
  int flat;                // staged rows are the input's rows (pitch == w): word i of a channel is raw pair i
  int raw_off, raw_bytes;  // the raw image's place in shared memory (16-byte aligned) and its size
  int bar_off;             // the copy's mbarrier
  FastDiv div_plane;       // staged word -> input channel (flat)
};

// Why the kernel does not take a shape ("" when it does).
inline std::string poolm_unsupported(const ConvPoolShape& s, Variant v) {
  if (v == Variant::kFfma) return "pool-on-M runs on Tensor Cores only (strict fp32 runs FFMA)";
  if (s.pool_window != 2 || s.pool_stride != 2) return "pool-on-M needs a 2x2 pool of stride 2";
  if (s.k > 4) return "pool-on-M takes at most 4 output channels (4 pool positions x 4 channels in M)";
  if (s.r > 7) return "pool-on-M needs a kernel of at most 7x7 (its patch is 8 columns)";
  if (s.pad != 0) return "pool-on-M takes unpadded convolutions";
  if (s.c * ((s.r + 2) / 2) > kPoolMMaxKSteps)
    return "pool-on-M keeps at most 16 k-steps of weights in registers (input channels x patch rows / 2)";
  if (v == Variant::kTf32 && s.c * ((s.r + 2) / 2) > kPoolMMaxSplitKSteps)
    return "pool-on-M in tf32 mode (split bf16 products) keeps at most 8 k-steps of hi and lo weights in registers";
  return "";
}

// Plans a shape, a tile being `pb` pooled rows of one image (0: the whole image), staged by bulk copy when
// `bulk_elem` (the input element's size) is not 0; false with the reason when the kernel does not take the shape
// or a tile does not fit in `smem_limit`.
inline bool make_poolm_plan(const ConvPoolShape& s, Variant v, int smem_limit, PoolMPlan* out, std::string* why,
                            int pb = 0, int bulk_elem = 0) {
  std::string no = poolm_unsupported(s, v);
  PoolMPlan p{};
  p.n = s.n, p.c = s.c, p.h = s.h, p.w = s.w, p.k = s.k, p.r = s.r;
  p.ph = pooled_h(s), p.pw = pooled_w(s);
  if (no.empty() && (p.ph < 1 || p.pw < 1)) no = "the pool leaves no output";
  if (!no.empty()) {
    if (why) *why = no;
    return false;
  }
  p.rp = round_up(s.r + 1, 2);
  p.ksteps = s.c * p.rp / 2;
  p.ntiles = ceil_div(p.pw, 8);
  // The last n-tile reads columns up to 2 (8 ntiles - 1) + 7, the last pooled row rows up to 2 (ph - 1) + rp - 1.
  p.pitch = round_up(std::max(s.w, 16 * p.ntiles + 6), 2);
  p.pb = pb > 0 && pb < p.ph ? pb : p.ph;
  p.bands = ceil_div(p.ph, p.pb);
  p.tiles = s.n * p.bands;
  p.rows = 2 * (p.pb - 1) + p.rp;  // staged rows of a band (zeros past the image)
  p.plane_words = p.rows * p.pitch / 2;
  p.img_words = s.c * p.plane_words;
  p.split = v == Variant::kTf32;
  p.smem_bytes = p.img_words * 4 * (p.split ? 2 : 1);
  p.vec2 = s.w % 2 == 0;
  p.div_wpr = FastDiv(p.pitch / 2);
  p.div_rows = FastDiv(p.rows);
  if (bulk_elem > 0) {
    const int64_t img_bytes = static_cast<int64_t>(s.c) * s.h * s.w * bulk_elem;
    no = p.bands != 1 ? "bulk staging takes whole images"
         : img_bytes % 16 != 0
             ? "bulk staging copies whole 16-byte chunks (the image has " + std::to_string(img_bytes) + " bytes)"
             : "";
    if (!no.empty()) {
      if (why) *why = no;
      return false;
    }
    p.bulk = 1;
    p.flat = p.pitch == s.w;
    p.div_plane = FastDiv(p.plane_words);
    p.raw_off = round_up(p.smem_bytes, 16);
    p.raw_bytes = static_cast<int>(std::min<int64_t>(img_bytes, int64_t{1} << 30));
    p.bar_off = round_up(p.raw_off + p.raw_bytes, 8);
    p.smem_bytes = p.bar_off + 8;
  }
  if (p.smem_bytes > smem_limit) {
    if (why) *why = "one staged tile (" + std::to_string(p.smem_bytes) + " bytes) exceeds shared memory";
    return false;
  }
  *out = p;
  return true;
}

// A[m][kk] of the pool-on-M weight matrix, zero in the padding. w is ONNX's fp32 [k][c][r][r].
inline float poolm_weight(const PoolMPlan& p, const float* w, int m, int kk) {
  const int pos = m >> 2, ch = m & 3, dy = pos >> 1, dx = pos & 1;
  const int per_ci = p.rp * 8, ci = kk / per_ci, rem = kk - ci * per_ci;
  const int ky = rem / 8 - dy, kx = rem % 8 - dx;
  if (ch >= p.k || ci >= p.c || ky < 0 || ky >= p.r || kx < 0 || kx >= p.r) return 0.f;
  return w[((static_cast<size_t>(ch) * p.c + ci) * p.r + ky) * p.r + kx];
}

// make_poolm_plan for a tile configuration and input type.
template <class Cfg, class TIn>
inline bool plan_poolm(const ConvPoolShape& s, Variant v, int smem_limit, PoolMPlan* out, std::string* why) {
  return make_poolm_plan(s, v, smem_limit, out, why, Cfg::kRows, Cfg::kBulk ? static_cast<int>(sizeof(TIn)) : 0);
}

inline size_t poolm_weight_bytes(const PoolMPlan& p) {
  return static_cast<size_t>(p.ksteps) * 32 * 16 * (p.split ? 2 : 1);
}

// The packed A fragments (pack_a_fragments) of poolm_weight, rounded to the Word's type; for WordBf16x3 the hi
// fragments, then the lo ones. Host, once per engine.
template <class Word>
inline void poolm_pack_weights(const PoolMPlan& p, const float* w, uint4* out) {
  auto weight = [&](int m, int k) { return poolm_weight(p, w, m, k); };
  if constexpr (kSplitWord<Word>)
    pack_a_split(p.ksteps, weight, out);
  else
    pack_a_fragments<Word>(p.ksteps, weight, out);
}

// The same in a Tensor Core variant's operand type (bf16, fp16, or split bf16 in tf32 mode).
inline void poolm_pack_weights(const PoolMPlan& p, Variant v, const float* w, uint4* out) {
  if (v == Variant::kMmaF16)
    poolm_pack_weights<WordF16>(p, w, out);
  else if (v == Variant::kTf32)
    poolm_pack_weights<WordBf16x3>(p, w, out);
  else
    poolm_pack_weights<WordBf16>(p, w, out);
}

// Tile configurations: warps per CTA (each warp takes pooled rows in turn), n-tiles per pass (independent
// accumulators), pooled rows per tile (0: the whole image; fewer give a small batch more CTAs), whole images staged
// by bulk copy (the next one in flight while this one computes), and CTAs per SM the registers are capped for.
template <int Warps, int NT, int Rows, bool Bulk, int MinBlocks>
struct PoolMCfg {
  static constexpr int kWarps = Warps, kNT = NT, kRows = Rows;
  static constexpr bool kBulk = Bulk;
  static constexpr int kMinBlocks = MinBlocks;
};
struct PoolMW4N5 : PoolMCfg<4, 5, 0, false, 1> {
  static constexpr const char* kName = "poolm_w4_n5";
};
struct PoolMW8N5 : PoolMCfg<8, 5, 0, false, 1> {
  static constexpr const char* kName = "poolm_w8_n5";
};
struct PoolMW4N1 : PoolMCfg<4, 1, 0, false, 1> {  // one n-tile at a time (the first version)
  static constexpr const char* kName = "poolm_w4_n1";
};
// Bands of 4 pooled rows: one warp-row each, 10 tiles per conv1 image.
struct PoolMW4N5R4 : PoolMCfg<4, 5, 4, false, 1> {
  static constexpr const char* kName = "poolm_w4_n5_r4";
};
struct PoolMW4N5Bulk : PoolMCfg<4, 5, 0, true, 1> {
  static constexpr const char* kName = "poolm_w4_n5_bulk";
};
// Registers capped for 3 CTAs per SM (80 instead of 93: 0.233 -> 0.206 ms at 10000).
struct PoolMW8N5Bulk : PoolMCfg<8, 5, 0, true, 3> {
  static constexpr const char* kName = "poolm_w8_n5_bulk";
};
// Split words (tf32 mode) hold twice the weights and B words: 80 registers spill there (156 bytes), so these two
// keep 8 warps with 2 CTAs per SM, or 3 CTAs with 3 n-tiles at once.
struct PoolMW8N5Bulk2 : PoolMCfg<8, 5, 0, true, 2> {
  static constexpr const char* kName = "poolm_w8_n5_bulk_2cta";
};
struct PoolMW8N3Bulk : PoolMCfg<8, 3, 0, true, 3> {
  static constexpr const char* kName = "poolm_w8_n3_bulk";
};

#ifdef __CUDACC__

// The staged image's layout: rows in pairs (2i, 2i + 1), each pair's words interleaved, so that a lane's two B
// registers of a k-step (the same word of two consecutive patch rows) are one 64-bit load. Word xw of staged row
// r (rows counted over all channels; a channel has an even number) is at:
__device__ __forceinline__ int staged_word(int r, int xw, int wpr) { return (r & ~1) * wpr + 2 * xw + (r & 1); }

// Input rows y0 .. y0 + rows - 1 of every channel of one image (x) into shared memory as operand words (two
// elements of T per word), zero past the image, at staged_word. Every thread loads kStageUnroll words' inputs
// before it stores any, so that many loads are in flight (one at a time, the staging's latency was most of the
// kernel's time: lab, tools/results/h200/conv_poolm/).
constexpr int kStageUnroll = 8;
template <class Word, class TIn>
__device__ __forceinline__ void poolm_stage(const PoolMPlan& p, const TIn* __restrict__ x, int y0, uint32_t* s_img,
                                            int tid, int nthreads) {
  // The operand's own 16-bit type is copied as it is (bits); zeros past the image are zero bits either way.
  constexpr bool kCopy = sizeof(TIn) == 2 && std::is_same_v<Word, Word16<TIn>>;
  const int wpr = p.pitch / 2, total = p.c * p.rows * wpr;
  for (int base = tid; base < total; base += kStageUnroll * nthreads) {
    float f[kStageUnroll][2];
    uint32_t bits[kStageUnroll];
    FUSED_CONV_UNROLL
    for (int u = 0; u < kStageUnroll; ++u) {
      const int i = base + u * nthreads;
      f[u][0] = f[u][1] = 0.f;
      bits[u] = 0u;
      if (i >= total) continue;
      const int row = p.div_wpr.div(i), xw = i - row * wpr, ci = p.div_rows.div(row);
      const int yy = y0 + row - ci * p.rows, x0 = 2 * xw;
      if (yy >= p.h) continue;
      const TIn* src = x + (static_cast<size_t>(ci) * p.h + yy) * p.w + x0;
      if (p.vec2 && x0 + 1 < p.w) {
        if constexpr (kCopy) {
          bits[u] = *reinterpret_cast<const uint32_t*>(src);
        } else if constexpr (sizeof(TIn) == 2) {  // another 16-bit type: converted
          f[u][0] = to_float(src[0]), f[u][1] = to_float(src[1]);
        } else {
          const float2 v = *reinterpret_cast<const float2*>(src);
          f[u][0] = v.x, f[u][1] = v.y;
        }
      } else {
        if (x0 < p.w) f[u][0] = to_float(src[0]);
        if (x0 + 1 < p.w) f[u][1] = to_float(src[1]);
      }
    }
    FUSED_CONV_UNROLL
    for (int u = 0; u < kStageUnroll; ++u) {
      const int i = base + u * nthreads;
      if (i >= total) break;
      const int row = p.div_wpr.div(i), at = staged_word(row, i - row * wpr, wpr);
      if (kCopy && p.vec2) {
        s_img[at] = bits[u];
      } else {
        const uint2 wd = operand_words<Word>(f[u]);
        s_img[at] = wd.x;
        if constexpr (kSplitWord<Word>) s_img[p.img_words + at] = wd.y;
      }
    }
  }
}

// Bulk staging's second half: the raw image in shared memory (every input channel, [c][h][w] TIn) to operand
// words as poolm_stage lays them out, a pair of staged rows' word per thread and step (one 64-bit store; split
// words: a second one, the lo words). Flat plans (pitch == w) map word i of a channel to raw pair i, zero past the
// image's rows; others take poolm_stage's index arithmetic.
template <class Word, class TIn>
__device__ __forceinline__ void poolm_convert(const PoolMPlan& p, const TIn* raw, uint32_t* s_img, int tid,
                                              int nthreads) {
  constexpr bool kCopy = sizeof(TIn) == 2 && std::is_same_v<Word, Word16<TIn>>;
  constexpr int kUnroll = 2;
  const int wpr = p.pitch / 2, items = p.img_words / 2, hw2 = p.h * p.w / 2;
  auto words = [](float a, float b) {  // a pair's operand word, and its lo word for split words
    const float f[2] = {a, b};
    return operand_words<Word>(f);
  };
  auto raw_pair = [&](int q) {  // flat: raw element pair q
    if constexpr (kCopy) {
      return make_uint2(reinterpret_cast<const uint32_t*>(raw)[q], 0u);
    } else if constexpr (sizeof(TIn) == 4) {
      const float2 v = reinterpret_cast<const float2*>(raw)[q];
      return words(v.x, v.y);
    } else {
      return words(to_float(raw[2 * q]), to_float(raw[2 * q + 1]));
    }
  };
  auto raw_word = [&](int r, int xw) {  // any plan: staged row r (over all channels), word xw
    const int ci = p.div_rows.div(r), yy = r - ci * p.rows, x0 = 2 * xw;
    if (yy >= p.h || x0 >= p.w) return make_uint2(0u, 0u);
    const TIn* src = raw + (ci * p.h + yy) * p.w + x0;
    return words(to_float(src[0]), x0 + 1 < p.w ? to_float(src[1]) : 0.f);
  };
  for (int base = tid; base < items; base += kUnroll * nthreads) {
    uint2 w0[kUnroll], w1[kUnroll];  // the item's two words (staged rows 2 pr and 2 pr + 1): operand, lo
    FUSED_CONV_UNROLL
    for (int u = 0; u < kUnroll; ++u) {
      const int item = base + u * nthreads, pr = p.div_wpr.div(item), xw = item - pr * wpr;
      w0[u] = w1[u] = make_uint2(0u, 0u);
      if (item >= items) continue;
      if (p.flat) {
        const int i0 = 2 * pr * wpr + xw, ci = p.div_plane.div(i0), rem = i0 - ci * p.plane_words;
        if (rem < hw2) w0[u] = raw_pair(ci * hw2 + rem);
        if (rem + wpr < hw2) w1[u] = raw_pair(ci * hw2 + rem + wpr);
      } else {
        w0[u] = raw_word(2 * pr, xw), w1[u] = raw_word(2 * pr + 1, xw);
      }
    }
    FUSED_CONV_UNROLL
    for (int u = 0; u < kUnroll; ++u) {
      const int item = base + u * nthreads;
      if (item >= items) continue;
      reinterpret_cast<uint2*>(s_img)[item] = make_uint2(w0[u].x, w1[u].x);
      if constexpr (kSplitWord<Word>)
        reinterpret_cast<uint2*>(s_img + p.img_words)[item] = make_uint2(w0[u].y, w1[u].y);
    }
  }
}

// Float outputs: the pooled pair (px, px + 1) of one row, bias and ReLU after the max (as every fused kernel).
template <class TOut>
__device__ __forceinline__ void poolm_store(TOut* row, int px, int pw, float v0, float v1, float bias) {
  if (px < pw) row[px] = from_float<TOut>(nan_relu(v0 + bias));
  if (px + 1 < pw) row[px + 1] = from_float<TOut>(nan_relu(v1 + bias));
}

// 16-bit outputs run the epilogue on packed pairs: the accumulators start at the bias, so conv + bias is rounded
// to TOut first and the pool's maxima and the ReLU run on element pairs (max.NaN keeps a NaN; rounding is
// monotonic, so the max of rounded values is the rounded max).
template <class T>
__device__ __forceinline__ uint32_t max_nan_pair(uint32_t a, uint32_t b) {
  uint32_t d;
  if constexpr (std::is_same_v<T, __half>)
    asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  else
    asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
// Stores the pooled pair (px, px + 1) of one row, packed in TOut's bits.
template <class TOut>
__device__ __forceinline__ void poolm_store_bits(TOut* row, int px, int pw, uint32_t bits) {
  if (px + 1 < pw && (pw & 1) == 0) {
    *reinterpret_cast<uint32_t*>(row + px) = bits;
    return;
  }
  auto half_of = [](uint32_t u) {
    TOut v;
    *reinterpret_cast<unsigned short*>(&v) = static_cast<unsigned short>(u);
    return v;
  };
  if (px < pw) row[px] = half_of(bits);
  if (px + 1 < pw) row[px + 1] = half_of(bits >> 16);
}

// The lane's A fragments of every k-step (packed by poolm_pack_weights) and each k-step's word offset in the
// staged image: its first patch row's input channel and row pair.
template <int KS>
__device__ __forceinline__ void poolm_load_weights(const PoolMPlan& p, const uint4* __restrict__ wpk, int lane,
                                                   uint32_t (&a)[KS][4], int (&koff)[KS]) {
  FUSED_CONV_UNROLL
  for (int ks = 0; ks < KS; ++ks) {
    const uint4 v = ks < p.ksteps ? __ldg(wpk + ks * 32 + lane) : make_uint4(0, 0, 0, 0);
    a[ks][0] = v.x, a[ks][1] = v.y, a[ks][2] = v.z, a[ks][3] = v.w;
    const int half = p.rp / 2, ci = ks / half;
    koff[ks] = ci * p.plane_words + (ks - ci * half) * p.pitch;  // two rows of pitch / 2 words
  }
}

// NT n-tiles of one pooled row at once, from `row` (the lane's word of the row's first staged pair, see the
// kernel): independent accumulators, starting at `init`, keep NT MMAs in flight behind each k-step's loads.
// kWhole: every n-tile holds pooled pixels (no per-tile bounds). Split words add alo x B + A x B's lo words (at
// p.img_words) before A x B.
template <class Word, int NT, int KS, bool kWhole>
__device__ __forceinline__ void poolm_mma_pass(const PoolMPlan& p, const uint32_t (&a)[KS][4],
                                               const uint32_t (&alo)[KS][4], const int (&koff)[KS], const uint32_t* row,
                                               int nt0, float init, float (&acc)[NT][4]) {
  FUSED_CONV_UNROLL
  for (int j = 0; j < NT; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = init;
  FUSED_CONV_UNROLL
  for (int ks = 0; ks < KS; ++ks) {
    if (ks >= p.ksteps) break;
    uint2 bw[NT];
    const uint32_t* base = row + 16 * nt0 + koff[ks];  // then constant offsets per n-tile
    FUSED_CONV_UNROLL
    for (int j = 0; j < NT; ++j)
      bw[j] = kWhole || nt0 + j < p.ntiles ? *reinterpret_cast<const uint2*>(base + 16 * j) : make_uint2(0u, 0u);
    if constexpr (kSplitWord<Word>) {
      uint2 bl[NT];
      FUSED_CONV_UNROLL
      for (int j = 0; j < NT; ++j)
        bl[j] = kWhole || nt0 + j < p.ntiles ? *reinterpret_cast<const uint2*>(base + p.img_words + 16 * j)
                                             : make_uint2(0u, 0u);
      FUSED_CONV_UNROLL
      for (int j = 0; j < NT; ++j)
        if (kWhole || nt0 + j < p.ntiles) Word::mma(acc[j], alo[ks], bw[j]), Word::mma(acc[j], a[ks], bl[j]);
    }
    FUSED_CONV_UNROLL
    for (int j = 0; j < NT; ++j)
      if (kWhole || nt0 + j < p.ntiles) Word::mma(acc[j], a[ks], bw[j]);
  }
}

// The pooled pair (px, px + 1) of one n-tile in TOut's bits, ReLU applied: the max over the window's rows (the
// lane's accumulator rows g and g + 8) and columns (lane bit 4). Lanes g and g ^ 4 hold the same pair.
template <class TOut>
__device__ __forceinline__ uint32_t poolm_pool_pair(const float (&acc)[4]) {
  uint32_t m = max_nan_pair<TOut>(dev::pack_pair<TOut>(acc[0], acc[1]), dev::pack_pair<TOut>(acc[2], acc[3]));
  m = max_nan_pair<TOut>(m, __shfl_xor_sync(0xffffffffu, m, 16));
  return max_nan_pair<TOut>(m, 0u);  // ReLU
}

template <class Cfg, class Word, class TIn, class TOut, int KS>
__global__ void __launch_bounds__(Cfg::kWarps * 32, Cfg::kMinBlocks)
    fused_conv_poolm_kernel(const PoolMPlan p, const TIn* __restrict__ x, const uint4* __restrict__ wpk,
                            const float* __restrict__ bias, TOut* __restrict__ y) {
  constexpr int NT = Cfg::kNT;
  extern __shared__ __align__(16) uint32_t s_img[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  uint32_t a[KS][4], alo[KS][4];  // alo: split words' lo weights (unused otherwise)
  int koff[KS];
  poolm_load_weights(p, wpk, lane, a, koff);
  if constexpr (kSplitWord<Word>) poolm_load_weights(p, wpk + p.ksteps * 32, lane, alo, koff);
  const int ch = g & 3;
  const bool writer = (g & 4) == 0 && ch < p.k;  // after the dx shuffle, lanes g and g ^ 4 hold the same maxima
  constexpr bool kPacked = sizeof(TOut) == 2;
  // The packed epilogue starts the accumulators at the bias (every lane of the channel needs it).
  const float b = (kPacked ? ch < p.k : writer) && bias ? bias[ch] : 0.f;
  const int wpr = p.pitch / 2;
  const size_t img_elems = static_cast<size_t>(p.c) * p.h * p.w;
  // Bulk staging: thread 0 keeps the next image's copy in flight (whole tiles are whole images).
  [[maybe_unused]] TIn* raw = nullptr;
  [[maybe_unused]] uint64_t* bar = nullptr;
  [[maybe_unused]] uint32_t phase = 0;
  if constexpr (Cfg::kBulk) {
    if (p.bulk) {
      unsigned char* base = reinterpret_cast<unsigned char*>(s_img);
      raw = reinterpret_cast<TIn*>(base + p.raw_off);
      bar = reinterpret_cast<uint64_t*>(base + p.bar_off);
      if (threadIdx.x == 0) {
        dev::mbar_init(bar);
        if (blockIdx.x < p.tiles) dev::bulk_copy_g2s(raw, x + blockIdx.x * img_elems, p.raw_bytes, bar);
      }
    }
  }
  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    const int img = tile / p.bands, py0 = (tile - img * p.bands) * p.pb, rows = imin(p.pb, p.ph - py0);
    __syncthreads();  // the previous tile's reads are done (and, the first time, the barrier's init)
    if (Cfg::kBulk && p.bulk) {
      dev::mbar_wait(bar, phase);
      phase ^= 1u;
      poolm_convert<Word>(p, raw, s_img, threadIdx.x, Cfg::kWarps * 32);
      __syncthreads();  // the words are staged and the raw buffer free: the next image's copy may land in it
      const int next = tile + gridDim.x;
      if (threadIdx.x == 0 && next < p.tiles) {
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // this thread's reads before the copy's writes
        dev::bulk_copy_g2s(raw, x + static_cast<size_t>(next) * img_elems, p.raw_bytes, bar);
      }
    } else {
      poolm_stage<Word>(p, x + static_cast<size_t>(img) * img_elems, 2 * py0, s_img, threadIdx.x, Cfg::kWarps * 32);
      __syncthreads();
    }
    TOut* yt = y + ((static_cast<size_t>(img) * p.k + ch) * p.ph + py0) * p.pw;
    for (int ly = warp; ly < rows; ly += Cfg::kWarps) {
      // Word (px0 + g) + t of staged rows 2 ly and 2 ly + 1, in staged_word's layout.
      const uint32_t* row = s_img + 2 * ly * wpr + 2 * (g + t);
      TOut* yrow = yt + ly * p.pw;
      // NT n-tiles at once: independent accumulators keep NT MMAs in flight behind each k-step's loads. A pass
      // whose n-tiles all hold pooled pixels and whose pairs all land whole (the warp's uniform case) runs without
      // per-tile bounds.
      auto pass = [&](int nt0, auto whole_tag) {
        constexpr bool kWhole = decltype(whole_tag)::value;
        float acc[NT][4];
        poolm_mma_pass<Word, NT, KS, kWhole>(p, a, alo, koff, row, nt0, kPacked ? b : 0.f, acc);
        FUSED_CONV_UNROLL
        for (int j = 0; j < NT; ++j) {
          if (!kWhole && nt0 + j >= p.ntiles) break;
          const int px = (nt0 + j) * 8 + 2 * t;
          if constexpr (kPacked) {
            const uint32_t m = poolm_pool_pair<TOut>(acc[j]);
            if (writer) {
              if (kWhole)
                *reinterpret_cast<uint32_t*>(yrow + px) = m;
              else
                poolm_store_bits(yrow, px, p.pw, m);
            }
          } else {
            float v0 = nan_max(acc[j][0], acc[j][2]), v1 = nan_max(acc[j][1], acc[j][3]);  // dy: rows g and g + 8
            v0 = nan_max(v0, __shfl_xor_sync(0xffffffffu, v0, 16));                        // dx: lane bit 4
            v1 = nan_max(v1, __shfl_xor_sync(0xffffffffu, v1, 16));
            if (writer) poolm_store(yrow, px, p.pw, v0, v1, b);
          }
        }
      };
      for (int nt0 = 0; nt0 < p.ntiles; nt0 += NT) {
        if ((nt0 + NT) * 8 <= p.pw && (p.pw & 1) == 0)
          pass(nt0, std::true_type{});
        else
          pass(nt0, std::false_type{});
      }
    }
  }
}

template <class Cfg, class Word, class TIn, class TOut, int KS>
cudaError_t launch_poolm_ks(const PoolMPlan& p, const TIn* x, const uint4* w, const float* bias, TOut* y,
                            cudaStream_t stream) {
  return launch_persistent(fused_conv_poolm_kernel<Cfg, Word, TIn, TOut, KS>, Cfg::kWarps * 32, p.smem_bytes, p.tiles,
                           stream, p, x, w, bias, y);
}

// x: [n][c][h][w] TIn; packed_w: poolm_pack_weights with Word (WordBf16, WordF16 or, in tf32 mode, WordBf16x3) on
// the device; bias: [k] fp32 or nullptr; y: [n][k][ph][pw] TOut, 4-byte aligned; accumulation is fp32. `plan`
// from make_poolm_plan.
template <class Cfg, class Word, class TIn, class TOut>
cudaError_t launch_fused_conv_poolm(const PoolMPlan& plan, const TIn* x, const void* packed_w, const float* bias,
                                    TOut* y, cudaStream_t stream) {
  if (plan.n < 1) return cudaSuccess;
  if (plan.ksteps > (kSplitWord<Word> ? kPoolMMaxSplitKSteps : kPoolMMaxKSteps) ||
      (plan.split != 0) != kSplitWord<Word>)
    return cudaErrorInvalidValue;
  PoolMPlan p = plan;
  // Pair loads need each row to start on an even element and the tensor on a pair's boundary (8 bytes for float);
  // bulk copies a 16-byte boundary (an unaligned input is staged by loads, in the same shared memory).
  if ((reinterpret_cast<uintptr_t>(x) & (2 * sizeof(TIn) - 1)) != 0) p.vec2 = 0;
  if ((reinterpret_cast<uintptr_t>(x) & 15) != 0) p.bulk = 0;
  const uint4* w = static_cast<const uint4*>(packed_w);
  if (p.ksteps <= 4) return launch_poolm_ks<Cfg, Word, TIn, TOut, 4>(p, x, w, bias, y, stream);
  if (kSplitWord<Word> || p.ksteps <= 8) return launch_poolm_ks<Cfg, Word, TIn, TOut, 8>(p, x, w, bias, y, stream);
  if constexpr (!kSplitWord<Word>) return launch_poolm_ks<Cfg, Word, TIn, TOut, 16>(p, x, w, bias, y, stream);
  return cudaErrorInvalidValue;
}

#endif  // __CUDACC__

}  // namespace ie::fused_conv
