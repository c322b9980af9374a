// The "stacked" fused Conv + bias + ReLU + MaxPool kernel for few output channels (ie.FusedConv, k <= 16): the
// weights sit on the MMA's M side and the pixels on its N side, so the few channels do not waste the tile.
//
// Formulation. An M tile of 16 rows stacks kp output channels (k padded to a power of two) over dy = 16 / kp
// consecutive conv rows: row m is channel m % kp of conv row y0 + m / kp. N is 8 consecutive conv columns. K runs
// over the jr = dy + r - 1 input rows that those dy conv rows read, r taps each (padded to whole words), for every
// input channel. The weight matrix is the kernel shifted down by one row per stacked conv row:
//   A[(dy', ch)][(ci, j, kx)] = w[ch][ci][j - dy'][kx]   (zero where j - dy' is outside 0..r-1)
// so one B fragment (8 pixels x 16 taps of two input rows) feeds all dy conv rows at once. The conv net's conv1
// (1 -> 4 channels, 7x7) becomes M = 4 channels x 4 rows, K = 10 rows x 8 taps: 61% of the MMA's products are
// useful, against 38% with pixels on M (N = 4 of 8, K = 49 of 64). conv2 (4 -> 16) is M = 16 channels, K = 224.
//
// Per warp: the A fragments of every k-step stay in registers for the whole kernel (KS k-steps at most, 4
// registers each); a work unit is one row block (dy conv rows) x NW n-tiles; per k-step it loads the k-step's two
// word offsets (one LDS.64, shared by the NW n-tiles), then two LDS.32 per n-tile (pair-expanded staging: the
// word at column x holds elements x and x+1, so every tap pair is one aligned load) at immediate offsets 8 words
// apart, and issues NW MMAs. Index arithmetic is divide-free inside loops: every run-time division goes through
// FastDiv (one multiply-high and a shift); the previous kernel spent 60% of its instructions on division.
// Staging (converted to the MMA's operand words) and the pooled epilogue (fp32 conv tile in shared memory, max,
// bias, ReLU, NaN kept) are the shared ones of fused_conv_cuda.cuh in divide-free form. Several CTAs per SM
// overlap one CTA's staging and epilogue with another's MMAs.
#pragma once

#include "layers/common/cp_async.cuh"
#include "layers/fused_conv/fused_conv_cuda.cuh"

namespace ie::fused_conv {

// Division of n in [0, 2^31) by a run-time constant d >= 1: q = umulhi(n, mul) >> shift with
// mul = ceil(2^p / d), p = 31 + ceil(log2 d). Exact: the rounding excess n * (mul - 2^p / d) / 2^p stays below
// 2^-ceil(log2 d) <= 1 / d, under the gap to the next multiple. The lab checks it on edge and random values.
struct FastDiv {
  int d = 1;
  uint32_t mul = 0;
  int shift = 0;
  FastDiv() = default;
  explicit FastDiv(int divisor) : d(divisor) {
    if (d <= 1) return;
    int l = 0;
    while ((1LL << l) < d) ++l;
    const int p = 31 + l;
    mul = static_cast<uint32_t>(((1ULL << p) + static_cast<uint64_t>(d) - 1) / static_cast<uint64_t>(d));
    shift = p - 32;
  }
  __host__ __device__ int div(int n) const {
    if (d == 1) return n;
#ifdef __CUDA_ARCH__
    return static_cast<int>(__umulhi(static_cast<uint32_t>(n), mul) >> shift);
#else
    return static_cast<int>(((static_cast<uint64_t>(static_cast<uint32_t>(n)) * mul) >> 32) >> shift);
#endif
  }
  __host__ __device__ int mod(int n, int q) const { return n - q * d; }
};

// __byte_perm on the device, its definition on the host (the emulation): bytes of (b:a) picked by the selector's
// nibbles. 0x5432 takes the high half of a and the low half of b.
__host__ __device__ inline uint32_t byte_perm(uint32_t a, uint32_t b, uint32_t sel) {
#ifdef __CUDA_ARCH__
  return __byte_perm(a, b, sel);
#else
  const uint64_t v = (static_cast<uint64_t>(b) << 32) | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<uint32_t>((v >> (8 * ((sel >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
#endif
}

// Tile configurations (the autotuning table): warps per CTA, n-tiles per work unit, target conv outputs per tile.
// kMinBlocks: CTAs per SM the register allocation must allow with KS = 8 (ptxas otherwise aimed at 64 registers
// for 256 threads and spilled); see stacked_min_blocks for KS = 16 and for the kernel without a running max.
struct StackedW8N2 {
  static constexpr const char* kName = "stk_w8_n2_px6400";
  static constexpr int kWarps = 8, kNW = 2, kTargetPixels = 6400, kMinBlocks = 2;
};
struct StackedW8N4 {
  static constexpr const char* kName = "stk_w8_n4_px4096";
  static constexpr int kWarps = 8, kNW = 4, kTargetPixels = 4096, kMinBlocks = 2;
};
struct StackedW8N5 {  // widths of 40 columns (conv1: 80) without padded n-tiles
  static constexpr const char* kName = "stk_w8_n5_px6400";
  static constexpr int kWarps = 8, kNW = 5, kTargetPixels = 6400, kMinBlocks = 2;
};
struct StackedW4N4 {
  static constexpr const char* kName = "stk_w4_n4_px1024";
  static constexpr int kWarps = 4, kNW = 4, kTargetPixels = 1024, kMinBlocks = 4;
};
struct StackedW4N4Small {
  static constexpr const char* kName = "stk_w4_n4_px512";
  static constexpr int kWarps = 4, kNW = 4, kTargetPixels = 512, kMinBlocks = 4;
};
struct StackedW4N2 {
  static constexpr const char* kName = "stk_w4_n2_px1024";
  static constexpr int kWarps = 4, kNW = 2, kTargetPixels = 1024, kMinBlocks = 4;
};
struct StackedW4N5 {
  static constexpr const char* kName = "stk_w4_n5_px3200";
  static constexpr int kWarps = 4, kNW = 5, kTargetPixels = 3200, kMinBlocks = 4;
};
struct StackedW5N5 {  // conv1's half-image tile is 10 row blocks: 2 per warp (4 warps take 3, 3, 2, 2)
  static constexpr const char* kName = "stk_w5_n5_px3200";
  static constexpr int kWarps = 5, kNW = 5, kTargetPixels = 3200, kMinBlocks = 3;
};

constexpr int kStackedMaxK = 16;       // output channels: one M tile
constexpr int kStackedMaxKSteps = 16;  // k-steps whose A fragments stay in registers (64 registers)

struct StackedPlan {
  int n, c, h, w, k, r, pad, win, ps;  // win = ps = 1 without a pool
  int oh, ow, ph, pw;                  // conv and pooled output sizes
  int e, rp;                           // elements per staged word; kernel row taps padded to whole words
  int kp, dy, log2kp;                  // channels padded to a power of two; conv rows per M tile (16 / kp)
  int jr;                              // input rows per (input channel, row block): dy + r - 1
  int kwords, ksteps;                  // K in words, and in MMA k-steps of 8 words
  int nw;                              // n-tiles (8 conv columns) per work unit
  int share;                           // shared-rows plans: conv rows per unit sharing their B loads (else 0)
  int split;                           // tf32 mode's shared rows (WordBf16x3): lo words lo_off words past the hi
                                       // ones, lo weights at off_alo (else 0)
  int lo_off;                          // split: words from a staged word to its lo word (g * img_words)
  int reg_pool;                        // 1: pooled in registers (see reg_pool_steps); 0: through the conv tile
  int rpu;                             // row blocks per work unit (a pool window's rows, when pooled in registers)
  int log2w;                           // reg_pool: log2 of the pool window (= stride)
  int rp_nm, rp_mask[3], rp_inlane;    // reg_pool: lane xor masks combining the window's rows inside M
  int rp_nc, rp_gmask, rp_tmask;       // ... columns across lanes; groupID / threadID bits shared by a window
  int g, pb, pcb, crb, cwk;            // per tile: images, pooled rows, pooled cols, conv rows, conv cols
  int rbn, groups, units;              // row blocks, column groups per image; work units per tile
  int rows_alloc, cols_alloc;          // conv rows, cols of the tile as computed (whole row blocks and groups)
  int flat;                            // staged rows are image rows: one contiguous copy per channel band
  int prefetch;                        // flat: the next tile's bands arrive by cp.async while this one computes
  int in_bytes, raw_band_bytes;        // prefetch: bytes per input element, per band in the raw buffer
  int irb, ws, plane, img_words;       // staged rows, words per staged row, per channel, per image
  int ct_stride;                       // floats per channel of the conv tile (= 8 mod 32: conflict-free stores)
  int tiles_y, tiles_x, tiles;
  // The staged words at off_in; at off_raw the raw bands of the next tile (prefetch), or else the second staged
  // buffer of the register-pooled kernels; the fp32 conv tile at off_ct (not with reg_pool).
  int off_kofs, off_in, off_raw, off_ct, off_alo, smem_bytes;
  FastDiv div_unit_img;              // unit -> image, row-block group
  FastDiv div_irb, div_c;            // staged row -> image, channel, row
  FastDiv div_pcb, div_pb, div_k;    // pooled output -> image, channel, row, column
  FastDiv div_tiles_x, div_tiles_y;  // tile -> image group, band, column block
};

inline int log2_exact(int v) {  // v a power of two
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

inline int stacked_kp(int k) {
  int kp = 1;
  while (kp < k) kp *= 2;
  return kp;
}

// The tile's geometry for g images x pb pooled rows x pcb pooled columns: conv rows and columns, row blocks, units,
// tile counts, staged input rows. Shared with the lab's variants of this kernel.
inline void stacked_tile_geometry(StackedPlan& p, int g, int pb, int pcb) {
  p.g = g, p.pb = pb, p.pcb = pcb;
  p.crb = (pb - 1) * p.ps + p.win;
  p.cwk = (pcb - 1) * p.ps + p.win;
  p.rbn = round_up(ceil_div(p.crb, p.dy), p.rpu);
  p.groups = ceil_div(ceil_div(p.cwk, 8), p.nw);
  p.units = g * (p.rbn / p.rpu);
  p.rows_alloc = p.rbn * p.dy;
  p.cols_alloc = p.groups * p.nw * 8;
  p.tiles_y = ceil_div(p.ph, pb);
  p.tiles_x = ceil_div(p.pw, pcb);
  p.irb = p.rows_alloc + p.r - 1;
  p.tiles = ceil_div(p.n, g) * p.tiles_y * p.tiles_x;
}

// Bytes of one band's raw copy (stacked_prefetch). A band is copied in whole 16-byte chunks from the boundary at or
// before its first element: up to 14 bytes more before it with 16-bit elements (+12 was short by a chunk when
// irb * w * 2 = 4 mod 16 and the lead is 14: the last chunk's zeros then landed on the next band's first 16 bytes,
// or past the raw buffer).
inline int stacked_raw_band_bytes(const StackedPlan& p) {
  return p.prefetch ? round_up(p.irb * p.w * p.in_bytes + 15, 16) : 0;
}

inline void size_stacked(StackedPlan& p, int g, int pb, int pcb) {
  stacked_tile_geometry(p, g, pb, pcb);
  // Flat staging: with no padding and whole rows, a band of a channel is one contiguous run of the input; with
  // the staged row as long as the image row it is copied as one flat array (see stacked_stage_flat).
  p.flat = p.pad == 0 && p.tiles_x == 1 && p.cols_alloc + p.rp - p.e <= p.w;
  p.ws = p.flat ? p.w : p.cols_alloc + p.rp - p.e;
  p.plane = p.irb * p.ws;
  p.img_words = p.c * p.plane;
  p.ct_stride = p.reg_pool ? 0 : round_up(g * p.rows_alloc * p.cols_alloc, 32) + 8;
  p.prefetch = p.flat;
  p.raw_band_bytes = stacked_raw_band_bytes(p);
  p.lo_off = p.split ? g * p.img_words : 0;
  const int staged = g * p.img_words * 4 * (p.split ? 2 : 1);  // split: hi words, then lo words
  p.off_kofs = 0;
  p.off_in = round_up(p.ksteps * 4 * 8, 16);
  p.off_raw = round_up(p.off_in + staged, 16);
  p.off_ct = round_up(p.off_raw + std::max(p.reg_pool ? staged : 0, g * p.c * p.raw_band_bytes), 16);
  p.off_alo = round_up(p.off_ct + p.k * p.ct_stride * 4, 16);
  p.smem_bytes = p.off_alo + (p.split ? p.ksteps * 32 * 16 : 0);
}

// Pooling in registers needs non-overlapping windows (stride = window) of 1, 2, 4 or 8 and whole windows inside
// an n-tile (8 columns) and inside a unit's rows. The window's rows inside one M tile are combined across lanes
// (xor of the groupID bits that select them) or inside the lane (rows g and g + 8); rows beyond the M tile are
// consecutive row blocks of the unit (kp = 16: dy = 1), combined by a running max. Columns: the lane's pair
// (2t, 2t+1), then xor of threadID bits.
inline void reg_pool_steps(StackedPlan& p) {
  const int wnd = p.win;
  p.log2w = log2_exact(wnd);
  const int in_m = std::min(wnd, p.dy);
  p.rpu = wnd / in_m;
  p.rp_nm = 0, p.rp_inlane = 0, p.rp_gmask = 0;
  for (int s = p.kp; s < p.kp * in_m; s *= 2) {
    if (s == 8) {
      p.rp_inlane = 1;
    } else {
      p.rp_mask[p.rp_nm++] = s << 2;  // M row m = groupID (+8): bit s of m is lane bit log2(s) + 2
      p.rp_gmask |= s;
    }
  }
  p.rp_nc = wnd >= 8 ? 2 : wnd >= 4 ? 1 : 0;
  p.rp_tmask = (1 << p.rp_nc) - 1;
}

// Why the stacked kernel does not take a shape ("" when it does), before tiling.
inline std::string stacked_unsupported(const ConvPoolShape& s, Variant v) {
  if (v == Variant::kFfma) return "the stacked kernel runs on Tensor Cores only";
  if (s.k > kStackedMaxK) return "more than 16 output channels";
  const int e = v == Variant::kTf32 ? 1 : 2;
  const int kp = stacked_kp(s.k), dy = 16 / kp, rp = round_up(s.r, e);
  const int ksteps = ceil_div(s.c * (dy + s.r - 1) * rp / e, 8);
  if (ksteps > kStackedMaxKSteps)
    return "K of " + std::to_string(ksteps) + " k-steps exceeds the 16 whose weights stay in registers";
  return "";
}

// Shared rows (see shared_rows_mma): one M tile of channels (k 9..16), the pool window's R = 2 or 4 conv rows
// computed together, kernel rows padded to 8 taps (two input rows per k-step) so that A shifted by two conv rows
// is the next k-step's registers; the weights of up to 4 input channels stay in registers.
inline std::string shared_rows_unsupported(const ConvPoolShape& s, Variant v) {
  if (v == Variant::kFfma) return "shared rows run on Tensor Cores only (strict fp32 runs FFMA)";
  if (stacked_kp(s.k) != 16) return "shared rows need 9 to 16 output channels";
  if (s.r != 5 && s.r != 7) return "shared rows need a 5x5 or 7x7 kernel";
  if (s.c > 4) return "shared rows keep the weights of 4 input channels at most";
  const int win = s.pool_window ? s.pool_window : 1, ps = s.pool_window ? s.pool_stride : 1;
  if (win != ps || (win != 2 && win != 4)) return "shared rows need a 2x2 or 4x4 pool with its own stride";
  return "";
}

// The divisions the kernel's index functions make by plan sizes, once the tile is chosen (a plan of another
// staging layout built on StackedPlan sets these too).
inline void set_stacked_divisors(StackedPlan& p) {
  p.div_unit_img = FastDiv(p.rbn / p.rpu);
  p.div_irb = FastDiv(p.irb);
  p.div_c = FastDiv(p.c);
  p.div_pcb = FastDiv(p.pcb);
  p.div_pb = FastDiv(p.pb);
  p.div_k = FastDiv(p.k);
  p.div_tiles_x = FastDiv(p.tiles_x);
  p.div_tiles_y = FastDiv(p.tiles_y);
}

// Picks the tile for a shape, variant and configuration; false (with the reason) when the stacked kernel does not
// take the shape or one pooled output's tile does not fit in `smem_limit` bytes.
// in_bytes: the input's element size (the prefetch buffer's size; 4 covers every type). share: a shared-rows plan
// (its own weight layout: stacked_pack_weights with share).
inline bool make_stacked_plan(const ConvPoolShape& s, Variant v, int nw, int target_pixels, int smem_limit,
                              StackedPlan* out, std::string* why, int in_bytes = 4, bool share = false) {
  const std::string no = share ? shared_rows_unsupported(s, v) : stacked_unsupported(s, v);
  if (!no.empty()) {
    if (why) *why = no;
    return false;
  }
  StackedPlan p{};
  set_conv_sizes(s, p);
  // tf32 mode's shared rows stage split bf16 words (WordBf16x3: two elements a word, as bf16); the stacked kernel
  // runs tf32 words.
  p.split = share && v == Variant::kTf32;
  p.e = v == Variant::kTf32 && !p.split ? 1 : 2;
  p.in_bytes = in_bytes;
  p.rp = share ? 8 : round_up(s.r, p.e);
  p.kp = stacked_kp(s.k);
  p.dy = 16 / p.kp;
  p.log2kp = log2_exact(p.kp);
  p.jr = share ? 8 : p.dy + s.r - 1;  // shared rows: A_0 holds kernel rows 0..7 per input channel
  p.kwords = s.c * p.jr * p.rp / p.e;
  p.ksteps = ceil_div(p.kwords, 8);
  p.nw = nw;
  p.reg_pool = p.win == p.ps && (p.win == 1 || p.win == 2 || p.win == 4 || p.win == 8);
  p.rpu = 1;
  if (p.reg_pool) reg_pool_steps(p);
  p.share = share ? p.rpu : 0;
  // Prefer bands whose conv rows fill whole units (conv1: an even number of pooled rows).
  TileSize ts = first_tile(p.n, p.ph, p.pw, p.win, p.ps, target_pixels, p.dy * p.rpu);
  if (!shrink_to_fit(
          ts, smem_limit,
          [&](const TileSize& t) {
            size_stacked(p, t.g, t.pb, t.pcb);
            return p.smem_bytes;
          },
          why))
    return false;
  if (static_cast<long long>(ceil_div(p.n, p.g)) * p.tiles_y * p.tiles_x > (1LL << 31) - 1 ||
      static_cast<long long>(p.g) * p.k * p.pb * p.pcb > (1LL << 31) - 1) {
    if (why) *why = "too many tiles for 32-bit tile indices";
    return false;
  }
  set_stacked_divisors(p);
  *out = p;
  return true;
}

// ---- index functions shared by the kernel and the emulation -------------------------------------------------

__host__ __device__ inline TileCoord stacked_tile_coord(const StackedPlan& p, int tile) {
  TileCoord t;
  const int rest = p.div_tiles_x.div(tile);
  t.tx = p.div_tiles_x.mod(tile, rest);
  const int img_group = p.div_tiles_y.div(rest);
  t.ty = p.div_tiles_y.mod(rest, img_group);
  t.n0 = img_group * p.g;
  t.y0 = t.ty * p.pb * p.ps - p.pad;
  t.x0 = t.tx * p.pcb * p.ps - p.pad;
  return t;
}

// Staged row (gi, ci, ly) word xw holds elements x0+xw .. x0+xw+e-1 of input row y0+ly, zero outside the image
// and past the batch. Warps take rows, lanes take words.
template <class Word, class TIn>
__host__ __device__ inline void stacked_stage(const StackedPlan& p, const TIn* __restrict__ x, const TileCoord& t,
                                              uint32_t* __restrict__ s_in, int warp, int nwarps, int lane) {
  const int rows = p.g * p.c * p.irb;
  for (int row = warp; row < rows; row += nwarps) {
    const int gc = p.div_irb.div(row), ly = p.div_irb.mod(row, gc);
    const int gi = p.div_c.div(gc), ci = p.div_c.mod(gc, gi);
    const int img = t.n0 + gi, y = t.y0 + ly;
    const bool row_ok = img < p.n && y >= 0 && y < p.h;
    const TIn* src = row_ok ? x + ((static_cast<size_t>(img) * p.c + ci) * p.h + y) * p.w : x;
    uint32_t* dst = s_in + static_cast<size_t>(row) * p.ws;
    if constexpr (Word::kE == 2 && sizeof(TIn) == 2) {
      // 16-bit input in the operand's own type (bf16/f16 modes): copy bits, two elements per 32-bit load. The
      // lane makes words xw, xw + 1 from the aligned pairs around element x0 + xw.
      if (std::is_same_v<Word, Word16<TIn>> && row_ok && (reinterpret_cast<uintptr_t>(src) & 3) == 0) {
        const uint32_t* src32 = reinterpret_cast<const uint32_t*>(src);
        auto pair = [&](int q) -> uint32_t {  // elements 2q, 2q+1 of the row, zero outside it
          if (q < 0 || 2 * q >= p.w) return 0u;
          if (2 * q + 1 < p.w) return src32[q];
          return static_cast<uint32_t>(reinterpret_cast<const unsigned short*>(src)[2 * q]);
        };
        const int odd = t.x0 & 1;
        for (int xw = 2 * lane; xw < p.ws; xw += 64) {
          const int q = (t.x0 + xw - odd) >> 1;  // pair holding element x0 + xw (odd: its high half)
          const uint32_t p0 = pair(q), p1 = pair(q + 1);
          const uint32_t lo = odd ? byte_perm(p0, p1, 0x5432) : p0;  // elements x0+xw, x0+xw+1
          const uint32_t hi = odd ? p1 : byte_perm(p0, p1, 0x5432);  // elements x0+xw+1, x0+xw+2
          dst[xw] = lo;
          if (xw + 1 < p.ws) dst[xw + 1] = hi;
        }
        continue;
      }
    }
    stage_row_words<Word>(src, row_ok, p.w, t.x0, dst, p.ws, lane, p.lo_off);
  }
}

// Band `seg` (image gi, channel ci) of a flat tile: the contiguous run of input rows y0 .. y0 + irb - 1 that it
// stages, as its first element in x and its length (shorter at the image's bottom; 0 past the batch).
template <class TIn>
struct BandRun {
  const TIn* src;
  int len;
};
// Band seg is plane n0 * c + seg of the input (gi * c + ci = seg): no division, and it exists while
// seg < (n - n0) * c. (Every thread computes every band: with a division it cost conv2 5% of its instructions.)
template <class TIn>
__host__ __device__ inline BandRun<TIn> stacked_band(const StackedPlan& p, const TIn* x, const TileCoord& t, int seg) {
  const int left = p.n - t.n0;  // images from n0 on (seg < g * c: no overflow once left < g)
  if (left < p.g && seg >= left * p.c) return {x, 0};
  return {x + ((static_cast<size_t>(t.n0) * p.c + seg) * p.h + t.y0) * p.w, imin(p.irb, p.h - t.y0) * p.w};
}

// Flat staging (p.flat): staged word i of channel band (gi, ci) is built from elements i, i + 1 (e = 2) or i
// (e = 1) of the band's run (band(seg): in global memory, or its copy in shared memory), zero past the image or
// the batch. (A word at a row's last column pairs it with the next row's first element: only padded columns read
// it.) All threads share the work: 4 words per thread and step, one 8-byte (16-bit types) or 16-byte (fp32) load.
template <class Word, class TIn, class BandFn>
__host__ __device__ inline void stage_flat_words(const StackedPlan& p, BandFn band, uint32_t* __restrict__ s_in,
                                                 int tid, int nthreads) {
  for (int seg = 0; seg < p.g * p.c; ++seg) {
    const BandRun<TIn> run = band(seg);
    const TIn* __restrict__ src = run.src;
    const int len = run.len;
    uint32_t* dst = s_in + static_cast<size_t>(seg) * p.plane;
    constexpr bool kBits = Word::kE == 2 && std::is_same_v<Word, Word16<TIn>>;
    constexpr bool kF32 = Word::kE == 1 && std::is_same_v<TIn, float>;
    // float32 input converted to 16-bit words as it is staged (the graph's input read without a Cast step)
    constexpr bool kF32To16 = Word::kE == 2 && std::is_same_v<TIn, float>;
    const bool vec = (reinterpret_cast<uintptr_t>(src) & (kF32 || kF32To16 ? 15 : 7)) == 0;
    const bool vec_store = (p.plane & 3) == 0;
    for (int i = 4 * tid; i < p.plane; i += 4 * nthreads) {
      uint32_t wd[4], wl[4] = {};  // wl: split words' lo words (lo_off words further)
      auto words = [&](int k, const float* f) {
        const uint2 w = operand_words<Word>(f);
        wd[k] = w.x, wl[k] = w.y;
      };
      if (kBits && vec && i + 4 < len) {
        const uint2 v = *reinterpret_cast<const uint2*>(src + i);
        const uint32_t e4 = static_cast<uint32_t>(reinterpret_cast<const unsigned short*>(src)[i + 4]);
        wd[0] = v.x, wd[1] = byte_perm(v.x, v.y, 0x5432), wd[2] = v.y, wd[3] = byte_perm(v.y, e4, 0x5432);
      } else if (kF32To16 && vec && i + 4 < len) {
        const float4 v = *reinterpret_cast<const float4*>(src + i);
        const float f[5] = {v.x, v.y, v.z, v.w, to_float(src[i + 4])};
        FUSED_CONV_UNROLL
        for (int k = 0; k < 4; ++k) words(k, &f[k]);
      } else if (kF32 && vec && i + 3 < len) {
        const float4 v = *reinterpret_cast<const float4*>(src + i);
        const float f[4] = {v.x, v.y, v.z, v.w};
        FUSED_CONV_UNROLL
        for (int k = 0; k < 4; ++k) wd[k] = Word::pack(&f[k]);
      } else {
        float f[5];
        FUSED_CONV_UNROLL
        for (int k = 0; k < 5; ++k) f[k] = i + k < len ? to_float(src[i + k]) : 0.f;
        FUSED_CONV_UNROLL
        for (int k = 0; k < 4; ++k) words(k, &f[k]);
      }
      if (vec_store && i + 3 < p.plane) {
        *reinterpret_cast<uint4*>(dst + i) = make_uint4(wd[0], wd[1], wd[2], wd[3]);
        if constexpr (kSplitWord<Word>)
          *reinterpret_cast<uint4*>(dst + p.lo_off + i) = make_uint4(wl[0], wl[1], wl[2], wl[3]);
      } else {
        FUSED_CONV_UNROLL
        for (int k = 0; k < 4; ++k)
          if (i + k < p.plane) {
            dst[i + k] = wd[k];
            if constexpr (kSplitWord<Word>) dst[p.lo_off + i + k] = wl[k];
          }
      }
    }
  }
}

// Flat staging straight from global memory.
template <class Word, class TIn>
__host__ __device__ inline void stacked_stage_flat(const StackedPlan& p, const TIn* __restrict__ x, const TileCoord& t,
                                                   uint32_t* __restrict__ s_in, int tid, int nthreads) {
  stage_flat_words<Word, TIn>(
      p, [&](int seg) { return stacked_band(p, x, t, seg); }, s_in, tid, nthreads);
}

// Flat staging from the raw copy of the tile's bands (stacked_prefetch): band seg's bytes from the 16-byte boundary
// at or before its first element sit at raw + seg * raw_band_bytes, so each element keeps its global address's
// alignment (the vector loads stay possible).
template <class Word, class TIn>
__host__ __device__ inline void stacked_stage_raw(const StackedPlan& p, const TIn* __restrict__ x, const TileCoord& t,
                                                  const unsigned char* raw, uint32_t* __restrict__ s_in, int tid,
                                                  int nthreads) {
  stage_flat_words<Word, TIn>(
      p,
      [&](int seg) {
        const BandRun<TIn> g = stacked_band(p, x, t, seg);
        const unsigned char* copy = raw + static_cast<size_t>(seg) * p.raw_band_bytes;
        return BandRun<TIn>{reinterpret_cast<const TIn*>(copy + (reinterpret_cast<uintptr_t>(g.src) & 15)), g.len};
      },
      s_in, tid, nthreads);
}

// K over the jr input rows a row block reads (see tap_word_offset).
__host__ __device__ inline int stacked_kword_offset(const StackedPlan& p, int kw) {
  return tap_word_offset(kw, p.e, p.c, p.jr, p.rp, p.plane, p.ws);
}

// The lane with threadID_in_group t reads K words t and t + 4 of each k-step (B registers b0b1 and b2b3 for
// bf16/f16, b0 and b1 for tf32). One int2 per (k-step, t).
__host__ __device__ inline int2 stacked_kofs_entry(const StackedPlan& p, int ks, int t) {
  return make_int2(stacked_kword_offset(p, ks * 8 + t), stacked_kword_offset(p, ks * 8 + t + 4));
}

// Work unit u of a tile: image gi, rpu row blocks from rb, all column groups (looped inside the unit, so its
// set-up is paid once per row block, not per group); the staged word of the lane's pixel (column groupID, row 0
// of row block rb). Column group q starts at conv column q * nw * 8, staged word base + q * nw * 8.
struct StackedUnit {
  int gi, rb, base;
};
__host__ __device__ inline StackedUnit stacked_unit(const StackedPlan& p, int u, int lane) {
  StackedUnit s;
  s.gi = p.div_unit_img.div(u);
  s.rb = p.div_unit_img.mod(u, s.gi) * p.rpu;
  s.base = s.gi * p.img_words + s.rb * p.dy * p.ws + (lane >> 2);
  return s;
}

// Accumulators of n-tile j -> the fp32 conv tile [ch][gi * rows_alloc + row][col]: c0, c1 are M row groupID,
// columns 2t, 2t+1 (one 64-bit store); c2, c3 the same for row groupID + 8. Padded channels are dropped.
__host__ __device__ inline void stacked_store(const StackedPlan& p, float* __restrict__ ct, const StackedUnit& s,
                                              int col0, int j, int lane, const float (&c)[4]) {
  FUSED_CONV_UNROLL
  for (int half = 0; half < 2; ++half) {
    const int m = (lane >> 2) + 8 * half;
    const int ch = m & (p.kp - 1), row = s.rb * p.dy + (m >> p.log2kp);
    if (ch < p.k) {
      float* dst = ct + ch * p.ct_stride + (s.gi * p.rows_alloc + row) * p.cols_alloc + col0 + 8 * j + 2 * (lane & 3);
      dst[0] = c[2 * half];
      dst[1] = c[2 * half + 1];
    }
  }
}

// Pooled outputs of the tile from the fp32 conv tile; bias and ReLU after the max (max(relu(v + b)) equals
// relu(max(v) + b): rounding is monotonic). Consecutive threads take consecutive columns: coalesced NCHW stores.
template <class TOut>
__host__ __device__ inline void stacked_pool_store(const StackedPlan& p, const float* __restrict__ ct,
                                                   const float* __restrict__ bias, TOut* __restrict__ y,
                                                   const TileCoord& t, int tid, int nthreads) {
  const int total = p.g * p.k * p.pb * p.pcb;
  for (int idx = tid; idx < total; idx += nthreads) {
    const int r1 = p.div_pcb.div(idx), pc = p.div_pcb.mod(idx, r1);
    const int r2 = p.div_pb.div(r1), pr = p.div_pb.mod(r1, r2);
    const int gi = p.div_k.div(r2), ch = p.div_k.mod(r2, gi);
    const int img = t.n0 + gi, prow = t.ty * p.pb + pr, pcol = t.tx * p.pcb + pc;
    if (img >= p.n || prow >= p.ph || pcol >= p.pw) continue;
    pool_window(ct + ch * p.ct_stride + (gi * p.rows_alloc + pr * p.ps) * p.cols_alloc + pc * p.ps, p.cols_alloc, p.win,
                p.win, bias ? bias[ch] : 0.f, y + ((static_cast<size_t>(img) * p.k + ch) * p.ph + prow) * p.pw + pcol);
  }
}

// Register epilogue. After the window's values are combined (see reg_pool_steps) the lane holds v (M row
// groupID) and w (M row groupID + 8) of an n-tile, each the max over a whole window; lanes sharing a window write
// once (v by the lane whose window bits are 0, w by the one whose bits are all 1; v == w after an in-lane row
// combine). Without a pool every accumulator is an output: (c0, c2) at column 2t and (c1, c3) at 2t + 1.
// The destination rows depend on the unit and the lane only: resolved once per unit (a null row: not written).
template <class TOut>
struct PoolDst {
  TOut* row[2];  // y at the tile's first pooled column of the lane's v and w rows
  float bias[2];
  bool on[2];     // whether this lane writes v, w
  int col_limit;  // pooled columns of the tile that exist (0: the lane writes none)
  bool one_is_w;  // a window combined across lanes (rp_gmask != 0) leaves the lane one output at most: v or w
  // That one output's row, bias and column limit (0 when the lane writes none), chosen once per unit: selecting
  // per write cost the conv net's conv1 10% of its instructions.
  TOut* one_row;
  float one_bias;
  int one_limit;
};
template <class TOut>
__host__ __device__ inline PoolDst<TOut> pool_dst(const StackedPlan& p, const TileCoord& t, const StackedUnit& su,
                                                  int lane, const float* __restrict__ bias, TOut* __restrict__ y) {
  PoolDst<TOut> d;
  const int g = lane >> 2, img = t.n0 + su.gi;
  FUSED_CONV_UNROLL
  for (int half = 0; half < 2; ++half) {
    const int m = g + 8 * half, ch = m & (p.kp - 1);
    const int prow_l = (su.rb * p.dy + (m >> p.log2kp)) >> p.log2w, prow = t.ty * p.pb + prow_l;
    const bool mine = half == 0 ? (g & p.rp_gmask) == 0 : (g & p.rp_gmask) == p.rp_gmask && !p.rp_inlane;
    d.on[half] = mine && ch < p.k && prow_l < p.pb && prow < p.ph && img < p.n;
    d.row[half] = y + (d.on[half] ? ((static_cast<size_t>(img) * p.k + ch) * p.ph + prow) * p.pw + t.tx * p.pcb : 0);
    d.bias[half] = bias && d.on[half] ? bias[ch] : 0.f;
  }
  d.col_limit = imin(p.pcb, p.pw - t.tx * p.pcb);
  if (lane & 3 & p.rp_tmask) d.col_limit = 0;  // a window's other columns are written by its first lane
  d.one_is_w = (g & p.rp_gmask) != 0;
  d.one_row = d.one_is_w ? d.row[1] : d.row[0];
  d.one_bias = d.one_is_w ? d.bias[1] : d.bias[0];
  d.one_limit = (d.one_is_w ? d.on[1] : d.on[0]) ? d.col_limit : 0;
  return d;
}
template <class TOut>
__host__ __device__ inline void pool_write(const PoolDst<TOut>& d, int pcol_l, float v, float w) {
  if (pcol_l >= d.col_limit) return;
  if (d.on[0]) d.row[0][pcol_l] = from_float<TOut>(nan_relu(v + d.bias[0]));
  if (d.on[1]) d.row[1][pcol_l] = from_float<TOut>(nan_relu(w + d.bias[1]));
}
// The same when the lane has one output at most (rp_gmask != 0): half the branches and address arithmetic.
// (Selects, not d.row[d.one_is_w]: a run-time index puts the struct in local memory.)
template <class TOut>
__host__ __device__ inline void pool_write_one(const PoolDst<TOut>& d, int pcol_l, float v) {
  if (pcol_l < d.one_limit) d.one_row[pcol_l] = from_float<TOut>(nan_relu(v + d.one_bias));
}

// ---- weight packing (host, once per engine) ----------------------------------------------------------------

// A[m][k] of the stacked weight matrix (see the top), zero in the padding. w is ONNX's fp32 [k][c][r][r].
inline float stacked_weight(const StackedPlan& p, const float* w, int m, int k) {
  const int ch = m & (p.kp - 1), dyy = m >> p.log2kp;
  if (ch >= p.k || k >= p.c * p.jr * p.rp) return 0.f;
  const int ci = k / (p.jr * p.rp), rem = k - ci * p.jr * p.rp;
  const int j = rem / p.rp, kx = rem - j * p.rp, ky = j - dyy;
  if (kx >= p.r || ky < 0 || ky >= p.r) return 0.f;
  return w[((static_cast<size_t>(ch) * p.c + ci) * p.r + ky) * p.r + kx];
}

// The packed layout depends on the shape and variant only (not the batch or tile).
inline StackedPlan stacked_weight_plan(const ConvPoolShape& s, Variant v, bool share = false) {
  StackedPlan p{};
  std::string why;
  ConvPoolShape one = s;
  one.n = 1;
  make_stacked_plan(one, v, 1, 1, 1 << 30, &p, &why, 4, share);
  return p;
}

inline size_t stacked_weight_bytes(const ConvPoolShape& s, Variant v, bool share = false) {
  const StackedPlan p = stacked_weight_plan(s, v, share);
  return static_cast<size_t>(p.ksteps) * 32 * 16 * (p.split ? 2 : 1);
}

// One uint4 per (k-step, lane) of a 16-row A operand whose element (m, k) is weight(m, k): the lane's A registers
// {row g word t, row g+8 word t, row g word t+4, row g+8 word t+4} (bf16/f16: a0a1, a2a3, a4a5, a6a7; tf32:
// a0..a3), a word holding Word::kE consecutive elements of K. Shared by the stacked and pool-on-M layouts.
template <class Word, class Weight>
inline void pack_a_fragments(int ksteps, Weight weight, uint4* out) {
  for (int ks = 0; ks < ksteps; ++ks)
    for (int lane = 0; lane < 32; ++lane) {
      const int g = lane >> 2, t = lane & 3;
      uint32_t regs[4];
      for (int reg = 0; reg < 4; ++reg) {
        const int m = g + (reg & 1) * 8, kw = ks * 8 + t + (reg >> 1) * 4;
        float v[2] = {0.f, 0.f};
        for (int i = 0; i < Word::kE; ++i) v[i] = weight(m, kw * Word::kE + i);
        regs[reg] = Word::pack(v);
      }
      out[ks * 32 + lane] = make_uint4(regs[0], regs[1], regs[2], regs[3]);
    }
}

// The same for split words (WordBf16x3): the hi fragments (the weights rounded to bf16), then the lo ones.
template <class Weight>
inline void pack_a_split(int ksteps, Weight weight, uint4* out) {
  auto hi = [&](int m, int k) {
    const float v[2] = {weight(m, k), 0.f};
    return WordBf16::unpack(WordBf16::pack(v), 0);
  };
  pack_a_fragments<WordBf16>(ksteps, hi, out);
  pack_a_fragments<WordBf16>(
      ksteps, [&](int m, int k) { return WordBf16x3::low_part(weight(m, k), hi(m, k)); }, out + ksteps * 32);
}

template <class Word>
inline void stacked_pack_words(const StackedPlan& p, const float* w, uint4* out) {
  auto weight = [&](int m, int k) { return stacked_weight(p, w, m, k); };
  if constexpr (kSplitWord<Word>)
    pack_a_split(p.ksteps, weight, out);
  else
    pack_a_fragments<Word>(p.ksteps, weight, out);
}

// Writes stacked_weight_bytes(s, v, share) bytes to `out` (host memory; upload it 16-byte aligned).
inline void stacked_pack_weights(const ConvPoolShape& s, Variant v, const float* w, void* out, bool share = false) {
  const StackedPlan p = stacked_weight_plan(s, v, share);
  uint4* o = static_cast<uint4*>(out);
  if (p.split)
    stacked_pack_words<WordBf16x3>(p, w, o);
  else if (v == Variant::kTf32)
    stacked_pack_words<WordTf32>(p, w, o);
  else if (v == Variant::kMmaF16)
    stacked_pack_words<WordF16>(p, w, o);
  else
    stacked_pack_words<WordBf16>(p, w, o);
}

// ---- the kernel --------------------------------------------------------------------------------------------
#ifdef __CUDACC__

// Starts the copy of tile t's bands into the raw buffer (prefetch plans; x 16-byte aligned): 16-byte cp.async
// from the boundary at or before each band's first element, the last one cut at the band's end (zeros after it),
// one group per tile. Complete after cp_async_wait<0> and a barrier.
template <class TIn>
__device__ inline void stacked_prefetch(const StackedPlan& p, const TIn* __restrict__ x, const TileCoord& t,
                                        unsigned char* raw, int tid, int nthreads) {
  // A 16-byte copy that would reach past the input's last element goes element by element: cp.async's source
  // size keeps the hardware inside the tensor, but the copy still counts as a 16-byte read for memcheck.
  const unsigned char* x_end = reinterpret_cast<const unsigned char*>(x + static_cast<size_t>(p.n) * p.c * p.h * p.w);
  for (int seg = 0; seg < p.g * p.c; ++seg) {
    const BandRun<TIn> b = stacked_band(p, x, t, seg);
    const int lead = static_cast<int>(reinterpret_cast<uintptr_t>(b.src) & 15);
    const unsigned char* from = reinterpret_cast<const unsigned char*>(b.src) - lead;
    const int bytes = b.len > 0 ? lead + b.len * static_cast<int>(sizeof(TIn)) : 0;
    unsigned char* to = raw + static_cast<size_t>(seg) * p.raw_band_bytes;
    for (int i = 16 * tid; i < bytes; i += 16 * nthreads) {
      if (from + i + 16 <= x_end) {
        dev::cp_async16_prefix(to + i, from + i, imin(16, bytes - i));
      } else {
        const int skip = i == 0 ? lead : 0;
        const int n = (imin(16, bytes - i) - skip) / static_cast<int>(sizeof(TIn));
        const TIn* src = reinterpret_cast<const TIn*>(from + i + skip);
        TIn* dst = reinterpret_cast<TIn*>(to + i + skip);
        for (int e = 0; e < n; ++e) dst[e] = src[e];
      }
    }
  }
  dev::cp_async_commit();
}

// One row block x NW n-tiles over the whole K: acc = A (registers) x B gathered at `row` (the lane's pixel word).
// Per k-step one LDS.64 of the k-step's word offsets, shared by the NW n-tiles, then two LDS.32 per n-tile at
// immediate offsets 8 words apart.
template <class Word, int KS, int NW>
__device__ __forceinline__ void stacked_mma(const StackedPlan& p, const uint32_t (&a)[KS][4],
                                            const int2* __restrict__ s_kofs, const uint32_t* row, int lane,
                                            float (&acc)[NW][4]) {
  FUSED_CONV_UNROLL
  for (int j = 0; j < NW; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  // KS = 16 runs plans of 9..16 k-steps (8 and fewer take KS = 8): the first 9 need no test (a test per k-step
  // was 6% of conv2's instructions).
  constexpr int kSure = KS > 8 ? 9 : 1;
  FUSED_CONV_UNROLL
  for (int ks = 0; ks < KS; ++ks) {
    if (ks < kSure || ks < p.ksteps) {
      const int2 ko = s_kofs[ks * 4 + (lane & 3)];
      const uint32_t* b0 = row + ko.x;
      const uint32_t* b1 = row + ko.y;
      FUSED_CONV_UNROLL
      for (int j = 0; j < NW; ++j) Word::mma(acc[j], a[ks], make_uint2(b0[8 * j], b1[8 * j]));
    }
  }
}

// Shared rows: conv rows d = 0..R-1 of a unit (a pool window's rows, one channel M tile each) at once. Their
// input rows overlap (R + r - 1 rows feed R x r row products), so a B fragment (input rows i, i + 1 of channel ci,
// 8 pixels) is loaded once for the conv rows of one parity: conv row d = par + 2e meets kernel rows
// (i - d, i + 1 - d), and with i = par + 2s that is the row pair s - e of the unpadded weights A_0 (8 taps per
// row, 2 rows per k-step), one of its k-steps as it sits in registers. (Shifting A by a single row instead, so
// that all R rows share each fragment, re-pairs registers: ptxas then copied every A operand into an aligned
// quad, 3K moves per image, slower than loading the fragments twice.) Products of pairs that meet no kernel row
// are not issued; the last odd-parity pair's second row lies past the unit and is not loaded (zero).
// Per channel and n-tile (R = 4, r = 7): 19 LDS.32 for 16 MMAs, against 28 for 14 one row at a time.
// Split words (tf32 mode): each product also takes the B fragment's lo words (p.lo_off further) against A, and B
// against A's lo fragment from shared memory (s_alo: 64 more registers would not fit beside R accumulator sets).
template <class Word, int KS, int NW, int R, int JK>
__device__ __forceinline__ void shared_rows_mma(const StackedPlan& p, const uint32_t (&a)[KS][4], const uint32_t* row,
                                                const uint4* s_alo, float (&pm)[NW][4]) {
  constexpr int kR = 2 * JK - R + 1;  // the kernel's rows (odd)
  constexpr int kQ = (kR + 1) / 2;    // row pairs of A_0 (k-steps per input channel that hold weights)
  float acc[R][NW][4];
  FUSED_CONV_UNROLL
  for (int d = 0; d < R; ++d) FUSED_CONV_UNROLL
  for (int j = 0; j < NW; ++j) acc[d][j][0] = acc[d][j][1] = acc[d][j][2] = acc[d][j][3] = 0.f;
  FUSED_CONV_UNROLL
  for (int par = 0; par < 2; ++par) FUSED_CONV_UNROLL
  for (int ci = 0; ci < KS / 4; ++ci) {
    if (ci == 0 || ci < p.c) {
      const uint32_t* band = row + ci * p.plane + par * p.ws;
      FUSED_CONV_UNROLL
      for (int s = 0; s < JK; ++s) {
        const uint32_t* r0 = band + 2 * s * p.ws;
        const uint32_t* r1 = r0 + p.ws;
        const bool second = par == 0 || s + 1 < JK;  // input row par + 2s + 1 lies inside the unit
        uint2 b[NW], bl[NW];
        FUSED_CONV_UNROLL
        for (int j = 0; j < NW; ++j) b[j] = make_uint2(r0[8 * j], second ? r1[8 * j] : 0u);
        if constexpr (kSplitWord<Word>) {
          FUSED_CONV_UNROLL
          for (int j = 0; j < NW; ++j) bl[j] = make_uint2(r0[p.lo_off + 8 * j], second ? r1[p.lo_off + 8 * j] : 0u);
        }
        FUSED_CONV_UNROLL
        for (int e = 0; 2 * e + par < R; ++e) {
          const int q = s - e;  // the A_0 row pair conv row par + 2e meets
          if (q < 0 || q >= kQ) continue;
          if constexpr (kSplitWord<Word>) {
            const uint4 v = s_alo[(ci * 4 + q) * 32 + (threadIdx.x & 31)];
            const uint32_t alo[4] = {v.x, v.y, v.z, v.w};
            FUSED_CONV_UNROLL
            for (int j = 0; j < NW; ++j)
              Word::mma(acc[2 * e + par][j], alo, b[j]), Word::mma(acc[2 * e + par][j], a[ci * 4 + q], bl[j]);
          }
          FUSED_CONV_UNROLL
          for (int j = 0; j < NW; ++j) Word::mma(acc[2 * e + par][j], a[ci * 4 + q], b[j]);
        }
      }
    }
  }
  FUSED_CONV_UNROLL
  for (int j = 0; j < NW; ++j) FUSED_CONV_UNROLL
  for (int i = 0; i < 4; ++i) {
    float m = acc[0][j][i];
    FUSED_CONV_UNROLL
    for (int d = 1; d < R; ++d) m = nan_max(m, acc[d][j][i]);
    pm[j][i] = m;
  }
}

// The register epilogue of a column group: combine each n-tile's window (see reg_pool_steps) and write. NM, INL,
// NC: the combine steps when known at compile time (the common windows: no per-step branches), NM < 0: read
// from the plan.
template <int NM, bool INL, int NC, int NW, class TOut>
__device__ __forceinline__ void reg_pool_epilogue(const StackedPlan& p, const PoolDst<TOut>& dst, int col0, int lane,
                                                  const float (&pm)[NW][4]) {
  FUSED_CONV_UNROLL
  for (int j = 0; j < NW; ++j) {
    const int col = col0 + 8 * j + 2 * (lane & 3);
    float v = nan_max(pm[j][0], pm[j][1]), w = nan_max(pm[j][2], pm[j][3]);
    if constexpr (NM == 1 && !INL && NC == 0) {
      // One row combine across lanes: the two lanes write different rows (v and w), so each sends the partner the
      // value the partner writes: one shuffle and one max instead of two each.
      const float own = dst.one_is_w ? w : v, give = dst.one_is_w ? v : w;
      pool_write_one(dst, col >> p.log2w, nan_max(own, __shfl_xor_sync(0xffffffffu, give, p.rp_mask[0])));
    } else {
      FUSED_CONV_UNROLL
      for (int i = 0; i < (NM < 0 ? 3 : NM); ++i)
        if (NM >= 0 || i < p.rp_nm) {
          v = nan_max(v, __shfl_xor_sync(0xffffffffu, v, p.rp_mask[i]));
          w = nan_max(w, __shfl_xor_sync(0xffffffffu, w, p.rp_mask[i]));
        }
      if (NM < 0 ? p.rp_inlane != 0 : INL) v = w = nan_max(v, w);
      FUSED_CONV_UNROLL
      for (int i = 0; i < (NM < 0 ? 2 : NC); ++i)
        if (NM >= 0 || i < p.rp_nc) {
          v = nan_max(v, __shfl_xor_sync(0xffffffffu, v, 1 << i));
          w = nan_max(w, __shfl_xor_sync(0xffffffffu, w, 1 << i));
        }
      if (NM > 0)
        pool_write_one(dst, col >> p.log2w, dst.one_is_w ? w : v);
      else
        pool_write(dst, col >> p.log2w, v, w);
    }
  }
}

// No pool: every accumulator is an output, (c0, c2) at column 2t and (c1, c3) at 2t + 1.
template <int NW, class TOut>
__device__ __forceinline__ void unpooled_epilogue(const PoolDst<TOut>& dst, int col0, int lane,
                                                  const float (&pm)[NW][4]) {
  FUSED_CONV_UNROLL
  for (int j = 0; j < NW; ++j) {
    const int col = col0 + 8 * j + 2 * (lane & 3);
    pool_write(dst, col, pm[j][0], pm[j][2]);
    pool_write(dst, col + 1, pm[j][1], pm[j][3]);
  }
}

// The register epilogue of a column group for the plan's window (its common windows without per-step branches).
template <int NW, class TOut>
__device__ __forceinline__ void register_epilogue(const StackedPlan& p, const PoolDst<TOut>& dst, int col0, int lane,
                                                  const float (&pm)[NW][4]) {
  if (p.win == 1)
    unpooled_epilogue(dst, col0, lane, pm);
  else if (p.rp_nm == 1 && !p.rp_inlane && p.rp_nc == 0)  // 2x2 with kp <= 4 (conv1)
    reg_pool_epilogue<1, false, 0>(p, dst, col0, lane, pm);
  else if (p.rp_nm == 0 && !p.rp_inlane && p.rp_nc == 1)  // 4x4 with kp = 16 (conv2)
    reg_pool_epilogue<0, false, 1>(p, dst, col0, lane, pm);
  else if (p.rp_nm == 0 && p.rp_inlane && p.rp_nc == 0)  // 2x2 with kp = 8
    reg_pool_epilogue<0, true, 0>(p, dst, col0, lane, pm);
  else
    reg_pool_epilogue<-1, false, 0>(p, dst, col0, lane, pm);
}

// kMode: 0 pools through the conv tile in shared memory; 1 pools in registers, one row block per unit (no
// running max: its registers go to occupancy); 2 pools in registers over p.rpu row blocks.
// Shared rows hold R accumulator sets beside the weights: about 168 registers (3 CTAs of 4 warps per SM), unless
// the configuration names its own kShareMinBlocks.
template <class Cfg, class = void>
struct ShareMinBlocks {
  static constexpr int value = 65536 / (Cfg::kWarps * 32 * 168) > 0 ? 65536 / (Cfg::kWarps * 32 * 168) : 1;
};
template <class Cfg>
struct ShareMinBlocks<Cfg, std::void_t<decltype(Cfg::kShareMinBlocks)>> {
  static constexpr int value = Cfg::kShareMinBlocks;
};

template <class Cfg, int kMode, int KS, int kShareR, bool kSplit = false>
constexpr int stacked_min_blocks() {
  // KS = 16 (64 weight registers): 128 registers per thread for 4-warp CTAs; 8-warp ones spilled at 128 (two
  // accumulator sets), so they take 255. KS = 8: kMinBlocks, one more without the running max (kMode 1). Split
  // words hold the lo B fragments too: one CTA fewer.
  if (kShareR > 0)
    return kSplit && ShareMinBlocks<Cfg>::value > 1 ? ShareMinBlocks<Cfg>::value - 1 : ShareMinBlocks<Cfg>::value;
  return KS > 8 ? (Cfg::kWarps <= 4 ? Cfg::kMinBlocks : 1) : kMode == 1 ? Cfg::kMinBlocks + 1 : Cfg::kMinBlocks;
}

// kShareR > 0: a shared-rows plan (p.share == kShareR, JK = kJK; see shared_rows_mma), pooled in registers.
template <class Cfg, class Word, class TIn, class TOut, int KS, int kMode, int kShareR = 0, int kJK = 0>
__global__ void __launch_bounds__(Cfg::kWarps * 32, stacked_min_blocks<Cfg, kMode, KS, kShareR, kSplitWord<Word>>())
    fused_conv_stacked_kernel(const StackedPlan p, const TIn* __restrict__ x, const uint4* __restrict__ wpk,
                              const float* __restrict__ bias, TOut* __restrict__ y) {
  constexpr int kThreads = Cfg::kWarps * 32, NW = Cfg::kNW;
  constexpr bool kRegPool = kMode != 0;
  extern __shared__ __align__(16) unsigned char smem[];
  int2* s_kofs = reinterpret_cast<int2*>(smem + p.off_kofs);
  uint32_t* s_in = reinterpret_cast<uint32_t*>(smem + p.off_in);
  unsigned char* s_raw = smem + p.off_raw;
  float* s_ct = reinterpret_cast<float*>(smem + p.off_ct);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  uint32_t a[KS][4];  // the weights, for the whole kernel
  FUSED_CONV_UNROLL
  for (int ks = 0; ks < KS; ++ks) {
    const uint4 v = ks < p.ksteps ? __ldg(wpk + ks * 32 + lane) : make_uint4(0, 0, 0, 0);
    a[ks][0] = v.x, a[ks][1] = v.y, a[ks][2] = v.z, a[ks][3] = v.w;
  }
  for (int i = tid; i < p.ksteps * 4; i += kThreads) s_kofs[i] = stacked_kofs_entry(p, i >> 2, i & 3);
  uint4* s_alo = reinterpret_cast<uint4*>(smem + p.off_alo);  // split words: the lo weights (read after a barrier)
  if constexpr (kSplitWord<Word>)
    for (int i = tid; i < p.ksteps * 32; i += kThreads) s_alo[i] = __ldg(wpk + p.ksteps * 32 + i);

  // Prefetch: the tile's bands were copied to s_raw while the previous tile computed (its global loads were the
  // largest stall: 28% of conv1's samples waited on them); two barriers per tile: the first makes the raw bands
  // visible and closes the previous tile's reads of s_in, the second closes this staging's reads of s_raw
  // before the next tile's copy starts.
  const bool prefetch = p.prefetch;
  if (prefetch && blockIdx.x < p.tiles) stacked_prefetch(p, x, stacked_tile_coord(p, blockIdx.x), s_raw, tid, kThreads);
  int it = 0;
  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x, ++it) {
    const TileCoord t = stacked_tile_coord(p, tile);
    // Without prefetch, register pooling: two input buffers, one barrier per tile (a buffer is restaged only after
    // every warp has passed the barrier that follows the next tile's staging, so after its last read). Otherwise
    // one buffer, and the epilogue's barrier orders the next staging after this tile's reads.
    uint32_t* in = kRegPool && !prefetch && (it & 1) ? reinterpret_cast<uint32_t*>(s_raw) : s_in;
    if (prefetch) {
      dev::cp_async_wait<0>();
      __syncthreads();
      stacked_stage_raw<Word>(p, x, t, s_raw, in, tid, kThreads);
      __syncthreads();
      if (tile + static_cast<int>(gridDim.x) < p.tiles)
        stacked_prefetch(p, x, stacked_tile_coord(p, tile + gridDim.x), s_raw, tid, kThreads);
    } else {
      if (p.flat)
        stacked_stage_flat<Word>(p, x, t, in, tid, kThreads);
      else
        stacked_stage<Word>(p, x, t, in, warp, Cfg::kWarps, lane);
      __syncthreads();
    }
    for (int u = warp; u < p.units; u += Cfg::kWarps) {
      const StackedUnit su = stacked_unit(p, u, lane);
      PoolDst<TOut> dst;
      if constexpr (kRegPool) dst = pool_dst(p, t, su, lane, bias, y);
      for (int q = 0; q < p.groups; ++q) {
        const int col0 = q * NW * 8;
        float pm[NW][4];
        if constexpr (kShareR > 0)
          shared_rows_mma<Word, KS, NW, kShareR, kJK>(p, a, in + su.base + col0 + 2 * (lane & 3), s_alo, pm);
        else
          stacked_mma<Word, KS, NW>(p, a, s_kofs, in + su.base + col0, lane, pm);
        for (int rr = 1; kMode != 1 && kShareR == 0 && rr < p.rpu;
             ++rr) {  // a window over several row blocks: running max
          float acc[NW][4];
          stacked_mma<Word, KS, NW>(p, a, s_kofs, in + su.base + col0 + rr * p.dy * p.ws, lane, acc);
          FUSED_CONV_UNROLL
          for (int j = 0; j < NW; ++j) FUSED_CONV_UNROLL
          for (int i = 0; i < 4; ++i) pm[j][i] = nan_max(pm[j][i], acc[j][i]);
        }
        if constexpr (kRegPool) {
          register_epilogue(p, dst, col0, lane, pm);
        } else {
          FUSED_CONV_UNROLL
          for (int j = 0; j < NW; ++j) stacked_store(p, s_ct, su, col0, j, lane, pm[j]);
        }
      }
    }
    if constexpr (!kRegPool) {
      __syncthreads();
      stacked_pool_store(p, s_ct, bias, y, t, tid, kThreads);  // s_ct is next written after the next barrier
    }
  }
}

// Launches a persistent kernel: as many CTAs as the device holds at once, at most one per tile.
template <class Kernel, class... Args>
cudaError_t launch_persistent(Kernel kernel, int threads, int smem_bytes, int tiles, cudaStream_t stream,
                              Args... args) {
  int slots = 0;
  if (cudaError_t err = resident_slots(kernel, threads, smem_bytes, &slots); err != cudaSuccess) return err;
  kernel<<<std::min(tiles, slots), threads, smem_bytes, stream>>>(args...);
  return cudaGetLastError();
}

template <class Cfg, class Word, class TIn, class TOut, int KS, int kMode, int kShareR = 0, int kJK = 0>
cudaError_t launch_stacked_ks(const StackedPlan& p, const TIn* x, const uint4* w, const float* bias, TOut* y,
                              cudaStream_t stream) {
  return launch_persistent(fused_conv_stacked_kernel<Cfg, Word, TIn, TOut, KS, kMode, kShareR, kJK>, Cfg::kWarps * 32,
                           p.smem_bytes, p.tiles, stream, p, x, w, bias, y);
}

// x: [n][c][h][w] TIn; packed_w: stacked_pack_weights(s, v) on the device, v the precision of Word (WordBf16,
// WordF16, WordTf32); bias: [k] fp32 or nullptr; y: [n][k][ph][pw] TOut; accumulation is fp32. `p` comes from
// make_stacked_plan with Cfg::kNW (plan once per shape: planning costs as much as a batch-1 launch).
template <class Cfg, class Word, class TIn, class TOut>
cudaError_t launch_fused_conv_stacked(const StackedPlan& plan, const TIn* x, const void* packed_w, const float* bias,
                                      TOut* y, cudaStream_t stream) {
  if (plan.nw != Cfg::kNW || plan.ksteps > kStackedMaxKSteps || plan.e != Word::kE || plan.share || plan.split ||
      kSplitWord<Word>)
    return cudaErrorInvalidValue;
  StackedPlan p = plan;
  // The prefetch copies whole 16-byte chunks from the boundary before each band: x must start on one (a band's
  // chunk then never reaches before it), and the raw buffer must have been sized for TIn.
  if ((reinterpret_cast<uintptr_t>(x) & 15) != 0 || p.in_bytes < static_cast<int>(sizeof(TIn))) p.prefetch = 0;
  const uint4* w = static_cast<const uint4*>(packed_w);
  const int mode = !p.reg_pool ? 0 : p.rpu == 1 ? 1 : 2;
  if (p.ksteps <= 8)
    return mode == 0   ? launch_stacked_ks<Cfg, Word, TIn, TOut, 8, 0>(p, x, w, bias, y, stream)
           : mode == 1 ? launch_stacked_ks<Cfg, Word, TIn, TOut, 8, 1>(p, x, w, bias, y, stream)
                       : launch_stacked_ks<Cfg, Word, TIn, TOut, 8, 2>(p, x, w, bias, y, stream);
  return mode == 0   ? launch_stacked_ks<Cfg, Word, TIn, TOut, 16, 0>(p, x, w, bias, y, stream)
         : mode == 1 ? launch_stacked_ks<Cfg, Word, TIn, TOut, 16, 1>(p, x, w, bias, y, stream)
                     : launch_stacked_ks<Cfg, Word, TIn, TOut, 16, 2>(p, x, w, bias, y, stream);
}

// A shared-rows plan (make_stacked_plan with share; weights packed with share): the kernel's template for its
// window rows R and row pairs JK = (R + r - 1) / 2.
template <class Cfg, class Word, class TIn, class TOut>
cudaError_t launch_fused_conv_shared_rows(const StackedPlan& plan, const TIn* x, const void* packed_w,
                                          const float* bias, TOut* y, cudaStream_t stream) {
  if (plan.nw != Cfg::kNW || plan.ksteps > kStackedMaxKSteps || plan.e != Word::kE || !plan.share ||
      plan.share != plan.rpu || !plan.reg_pool || (plan.split != 0) != kSplitWord<Word>)
    return cudaErrorInvalidValue;
  StackedPlan p = plan;
  if ((reinterpret_cast<uintptr_t>(x) & 15) != 0 || p.in_bytes < static_cast<int>(sizeof(TIn))) p.prefetch = 0;
  const uint4* w = static_cast<const uint4*>(packed_w);
  const int jk = (p.share + p.r - 1) / 2;
  if (p.share == 4 && jk == 5) return launch_stacked_ks<Cfg, Word, TIn, TOut, 16, 2, 4, 5>(p, x, w, bias, y, stream);
  if (p.share == 4 && jk == 4) return launch_stacked_ks<Cfg, Word, TIn, TOut, 16, 2, 4, 4>(p, x, w, bias, y, stream);
  if (p.share == 2 && jk == 4) return launch_stacked_ks<Cfg, Word, TIn, TOut, 16, 2, 2, 4>(p, x, w, bias, y, stream);
  if (p.share == 2 && jk == 3) return launch_stacked_ks<Cfg, Word, TIn, TOut, 16, 2, 2, 3>(p, x, w, bias, y, stream);
  return cudaErrorInvalidValue;
}

// Plans a shape for the current device (the lab's entry points below); cudaErrorInvalidValue when the kernel
// does not take it.
template <class Cfg, class TIn>
cudaError_t plan_stacked_here(const ConvPoolShape& s, Variant v, bool share, StackedPlan* p) {
  DeviceLimits d;
  if (cudaError_t err = device_limits(&d)) return err;
  std::string why;
  if (!supported(s, &why, d.smem_optin) ||
      !make_stacked_plan(s, v, Cfg::kNW, Cfg::kTargetPixels, d.smem_optin, p, &why, sizeof(TIn), share))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

// The same, planning for the current device first.
template <class Cfg, class Word, class TIn, class TOut>
cudaError_t launch_fused_conv_stacked(const ConvPoolShape& s, Variant v, const TIn* x, const void* packed_w,
                                      const float* bias, TOut* y, cudaStream_t stream) {
  StackedPlan p;
  if (cudaError_t err = plan_stacked_here<Cfg, TIn>(s, v, false, &p)) return err;
  return launch_fused_conv_stacked<Cfg, Word, TIn, TOut>(p, x, packed_w, bias, y, stream);
}

template <class Cfg, class Word, class TIn, class TOut>
cudaError_t launch_fused_conv_shared_rows(const ConvPoolShape& s, Variant v, const TIn* x, const void* packed_w,
                                          const float* bias, TOut* y, cudaStream_t stream) {
  StackedPlan p;
  if (cudaError_t err = plan_stacked_here<Cfg, TIn>(s, v, true, &p)) return err;
  return launch_fused_conv_shared_rows<Cfg, Word, TIn, TOut>(p, x, packed_w, bias, y, stream);
}

#endif  // __CUDACC__

}  // namespace ie::fused_conv
