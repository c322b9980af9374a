// The stacked fused Conv + bias + ReLU + MaxPool kernel (fused_conv_stacked.cuh) with its B fragments loaded by
// ldmatrix from shifted copies of the input rows ("ldsm"), for bf16/f16 operands, k <= 16, r <= 8, pools of
// their own stride (1, 2, 4, 8: pooled in registers). A lab variant, not shipped: on conv1 it ran 7-9% slower than
// the stacked kernel (tests/kernels/fused_conv_lab.cu keeps the figures).
//
// Why. The stacked kernel gathers a B fragment (8 pixels x 16 taps of two input rows) with two LDS.32 per lane
// from pair-expanded staging: per k-step 1 LDS.64 of word offsets + 2 LDS.32 per n-tile, about two loads per MMA.
// ldmatrix.x4 loads four 8x8 b16 tiles = the B fragments of two k-steps of one n-tile in one instruction (half a
// load per MMA), but each of its rows (a pixel's 8 taps of one input row) must start on a 16-byte boundary.
//
// Layout. Per staged input row and chunk of 8 conv columns (an "entry", 128 bytes) the 8 shifted copies
// s = 0..7 of the row's elements 8c + s .. 8c + s + 7 (16 bytes each): pixel 8c + s's taps of that row are one
// aligned 16-byte row. A staged row is its entries + 16 bytes (see Banks). B fragment of k-step ks (K rows
// f = 2ks, 2ks + 1: input rows of the stacked formulation, 8 taps each, rp = 8) for the n-tile at chunk c:
// tile 0 = row f's entry, tile 1 = row f+1's,
// each 8 consecutive 16-byte copies; ldmatrix gives lane (g, t) the elements 2t, 2t+1 of tile row g = taps 2t, 2t+1
// of pixel g: B registers b0b1 (tile 0) and b2b3 (tile 1) exactly (PTX ISA: ldmatrix fragment = mma.m16n8k16's B
// fragment for a "col" B whose column n is the tile's row n). x4: tiles 2, 3 = k-step ks + 1.
// Lane l gives the address of row l % 8 (copy s = l % 8) of tile l / 8 (K row 4i + l / 8 of k-step pair i): a
// per-lane constant (ko[i], kept in registers for the kernel) + the unit's rows + 128 x the n-tile's chunk, so the
// NW loads of a pair are one register + immediates.
// Banks: ldmatrix's 8 rows of a tile are one entry's 128 contiguous bytes (one wavefront per tile). Staging: the
// tile's bands arrive raw by cp.async (the stacked kernel's prefetch, when there is no padding and one column
// block) or are read from global memory; a thread builds one entry from 16 elements (8 words), the odd shifts by
// byte_perm, and writes 8 x 16 bytes. Tasks run chunk-major (consecutive lanes: consecutive staged rows of one
// chunk): a staged row is an odd number of 16-byte units (8 per entry + 1), so 8 lanes' stores of one copy hit 8
// distinct bank groups, and the raw rows' word loads fall in distinct banks when an input row is an odd number of
// words (conv1 in bf16: 43).
// Costs against the stacked kernel: 4x the staged bytes (64 B per pixel and input row against 16 B), so fewer
// CTAs per SM by shared memory (conv1, px3200: 67 KB with bf16 input, 3 CTAs).
//
// Measured (lab, H100, batch 10000, bf16, same process as the stacked kernel): conv1 0.324-0.329 ms against
// 0.299-0.304 for stk_w5_n5_px3200; f32 in 0.341 against 0.317. It executes only 2% fewer warp instructions (the
// copies cost about what the loads saved) at a lower issue rate (15 warps per SM against 19). Not used by the
// engine; the lab's header has the history and the reasons.
#pragma once

#include "layers/fused_conv/fused_conv_stacked.cuh"

namespace ie::fused_conv {

constexpr int kLdsmEntryBytes = 128;  // one staged row x 8 conv columns: 8 shifted 16-byte copies

// Tile configurations (as the stacked kernel's): conv1's half image (px3200: 10 row blocks, 2 per warp) takes
// 67 KB of shared memory with bf16 input (3 CTAs per SM); a quarter image (px1600, 1 row block per warp) 38 KB.
struct LdsmW5N5 {
  static constexpr const char* kName = "ldsm_w5_n5_px3200";
  static constexpr int kWarps = 5, kNW = 5, kTargetPixels = 3200, kMinBlocks = 3;
};
struct LdsmW5N5Quarter {
  static constexpr const char* kName = "ldsm_w5_n5_px1600";
  static constexpr int kWarps = 5, kNW = 5, kTargetPixels = 1600, kMinBlocks = 4;
};
// A configuration's kFlavor (0 when absent; the lab's experiments on the MMA loop's control flow): 1 = every
// k-step pair by one x4 with no early exit (a last odd k-step's second half is loaded, from a valid row, and not
// multiplied); 2 = 1 and a __syncwarp() before the epilogue's shuffles (ptxas otherwise wraps the 65 shuffles of
// the conv1 kernel in WARPSYNC / ENDCOLLECTIVE divergence handling; removing it changed no timing).
template <class Cfg, class = void>
struct LdsmFlavor {
  static constexpr int value = 0;
};
template <class Cfg>
struct LdsmFlavor<Cfg, std::void_t<decltype(Cfg::kFlavor)>> {
  static constexpr int value = Cfg::kFlavor;
};

// A StackedPlan whose staging fields mean: ws = entries (8-column chunks) per staged row, plane = entries per
// channel band (irb * ws), img_words = entries per image; rp = 8 (one staged row per 8 K elements). Staged row
// `rowid` (image gi, channel ci, row ly: rowid = (gi * c + ci) * irb + ly) starts at rowid * row_bytes.
struct LdsmPlan : StackedPlan {
  FastDiv div_ws;    // staging task -> staged row, chunk
  FastDiv div_rows;  // staging task (chunk-major) -> chunk, staged row of the tile
  int row_bytes, plane_bytes, img_bytes;
};

// Why the ldsm kernel does not take a shape ("" when it does).
inline std::string ldsm_unsupported(const ConvPoolShape& s, Variant v) {
  if (v != Variant::kMmaBf16 && v != Variant::kMmaF16) return "ldmatrix staging runs on bf16/fp16 Tensor Cores only";
  if (s.k > kStackedMaxK) return "more than 16 output channels";
  if (s.r > 8) return "kernel rows longer than the 8 taps of an ldmatrix row";
  const int win = s.pool_window ? s.pool_window : 1, ps = s.pool_window ? s.pool_stride : 1;
  if (win != ps || (win != 1 && win != 2 && win != 4 && win != 8))
    return "pools in registers only: window = stride = 1, 2, 4 or 8";
  const int kp = stacked_kp(s.k), dy = 16 / kp;
  const int ksteps = ceil_div(s.c * (dy + s.r - 1), 2);
  if (ksteps > kStackedMaxKSteps)
    return "K of " + std::to_string(ksteps) + " k-steps exceeds the 16 whose weights stay in registers";
  return "";
}

inline void size_ldsm(LdsmPlan& p, int g, int pb, int pcb) {
  stacked_tile_geometry(p, g, pb, pcb);
  p.ws = p.cols_alloc / 8;
  p.plane = p.irb * p.ws;
  p.img_words = p.c * p.plane;
  // An odd number of 16-byte units per staged row: the chunk-major staging's lanes (consecutive rows of one chunk)
  // store to 8 distinct bank groups.
  p.row_bytes = p.ws * kLdsmEntryBytes + 16;
  p.plane_bytes = p.irb * p.row_bytes;
  p.img_bytes = p.c * p.plane_bytes;
  // Without padding and with one column block a channel band is one contiguous run of whole input rows: it can be
  // prefetched raw (stacked_prefetch) while the previous tile computes.
  p.flat = p.pad == 0 && p.tiles_x == 1;
  p.prefetch = p.flat;
  p.ct_stride = 0;
  p.raw_band_bytes = stacked_raw_band_bytes(p);
  p.off_kofs = 0;
  p.off_in = 0;
  p.off_raw = round_up(g * p.img_bytes, 16);
  p.off_ct = round_up(p.off_raw + g * p.c * p.raw_band_bytes, 16);
  p.smem_bytes = p.off_ct;
}

// Picks the tile (as make_stacked_plan does); false with the reason when the kernel does not take the shape.
inline bool make_ldsm_plan(const ConvPoolShape& s, Variant v, int nw, int target_pixels, int smem_limit, LdsmPlan* out,
                           std::string* why, int in_bytes = 4) {
  const std::string no = ldsm_unsupported(s, v);
  if (!no.empty()) {
    if (why) *why = no;
    return false;
  }
  LdsmPlan p{};
  set_conv_sizes(s, p);
  p.e = 2;
  p.in_bytes = in_bytes;
  p.rp = 8;
  p.kp = stacked_kp(s.k);
  p.dy = 16 / p.kp;
  p.log2kp = log2_exact(p.kp);
  p.jr = p.dy + s.r - 1;
  p.kwords = s.c * p.jr * p.rp / p.e;
  p.ksteps = ceil_div(p.kwords, 8);
  p.nw = nw;
  p.reg_pool = 1;
  p.rpu = 1;
  reg_pool_steps(p);
  p.share = 0;
  TileSize ts = first_tile(p.n, p.ph, p.pw, p.win, p.ps, target_pixels, p.dy * p.rpu);
  if (!shrink_to_fit(
          ts, smem_limit,
          [&](const TileSize& t) {
            size_ldsm(p, t.g, t.pb, t.pcb);
            return p.smem_bytes;
          },
          why))
    return false;
  if (static_cast<long long>(ceil_div(p.n, p.g)) * p.tiles_y * p.tiles_x > (1LL << 31) - 1 ||
      static_cast<long long>(p.g) * p.img_bytes > (1LL << 31) - 1) {
    if (why) *why = "too many tiles for 32-bit tile indices";
    return false;
  }
  set_stacked_divisors(p);
  p.div_ws = FastDiv(p.ws);
  p.div_rows = FastDiv(p.g * p.c * p.irb);
  *out = p;
  return true;
}

// ---- index functions shared by the kernel and the emulation -------------------------------------------------

// Byte offset of K row f (input channel f / jr, row f % jr of the row block) from the row block's first staged
// row; the K padding (f >= c * jr: zero weights) reads row 0.
__host__ __device__ inline int ldsm_row_offset(const LdsmPlan& p, int f) {
  if (f >= p.c * p.jr) return 0;
  const int ci = f / p.jr;
  return ci * p.plane_bytes + (f - ci * p.jr) * p.row_bytes;
}

// The lane's constant part of its ldmatrix address for k-step pair i: K row 4i + l / 8, copy l % 8.
__host__ __device__ inline int ldsm_lane_offset(const LdsmPlan& p, int i, int lane) {
  return ldsm_row_offset(p, 4 * i + (lane >> 3)) + (lane & 7) * 16;
}

// Byte offset of row block rb of image gi (its first staged row, chunk 0).
__host__ __device__ inline int ldsm_unit_offset(const LdsmPlan& p, int gi, int rb) {
  return gi * p.img_bytes + rb * p.dy * p.row_bytes;
}

// Elements col0 .. col0 + 15 of an input row as 8 words of Word (element pairs, lower index in the low half),
// zero outside 0 .. w - 1 or when !ok.
template <class Word, class TIn>
__host__ __device__ inline void ldsm_load16(const TIn* row, bool ok, int col0, int w, uint32_t (&wd)[8]) {
  const bool inside = ok && col0 >= 0 && col0 + 16 <= w;
  if constexpr (std::is_same_v<Word, Word16<TIn>>) {
    if (inside && (reinterpret_cast<uintptr_t>(row + col0) & 3) == 0) {
      const uint32_t* s = reinterpret_cast<const uint32_t*>(row + col0);
      FUSED_CONV_UNROLL
      for (int k = 0; k < 8; ++k) wd[k] = s[k];
      return;
    }
  } else if constexpr (std::is_same_v<TIn, float>) {
    if (inside && (reinterpret_cast<uintptr_t>(row + col0) & 7) == 0) {
      const float2* s = reinterpret_cast<const float2*>(row + col0);
      FUSED_CONV_UNROLL
      for (int k = 0; k < 8; ++k) {
        const float2 v = s[k];
        const float f[2] = {v.x, v.y};
        wd[k] = Word::pack(f);
      }
      return;
    }
  }
  FUSED_CONV_UNROLL
  for (int k = 0; k < 8; ++k) {
    float f[2];
    FUSED_CONV_UNROLL
    for (int e = 0; e < 2; ++e) {
      const int col = col0 + 2 * k + e;
      f[e] = ok && col >= 0 && col < w ? to_float(row[col]) : 0.f;
    }
    wd[k] = Word::pack(f);
  }
}

// One entry from its 16 elements: copy s = elements s .. s + 7 (even s: words s/2 .. s/2 + 3; odd s: the words
// between them, by byte_perm).
__host__ __device__ inline void ldsm_write_entry(const uint32_t (&wd)[8], unsigned char* dst) {
  uint32_t od[7];
  FUSED_CONV_UNROLL
  for (int k = 0; k < 7; ++k) od[k] = byte_perm(wd[k], wd[k + 1], 0x5432);  // elements 2k + 1, 2k + 2
  FUSED_CONV_UNROLL
  for (int s = 0; s < 8; ++s) {
    const int h = s >> 1;
    const uint4 v = (s & 1) ? make_uint4(od[h], od[h + 1], od[h + 2], od[h + 3])
                            : make_uint4(wd[h], wd[h + 1], wd[h + 2], wd[h + 3]);
    *reinterpret_cast<uint4*>(dst + 16 * s) = v;
  }
}

// Stages tile t: every entry of every (image, channel, staged row, chunk). kRaw: from the tile's bands as
// stacked_prefetch copied them to `raw` (p.prefetch), else from x. Staged row ly of band seg (image n0 + seg / c,
// channel seg % c: plane n0 * c + seg of x, no division) is input row y0 + ly; chunk cc starts at column x0 + 8cc.
template <class Word, class TIn, bool kRaw>
__host__ __device__ inline void ldsm_stage(const LdsmPlan& p, const TIn* __restrict__ x, const TileCoord& t,
                                           const unsigned char* raw, unsigned char* __restrict__ s_in, int tid,
                                           int nthreads) {
  const int rows = p.g * p.c * p.irb, tasks = rows * p.ws;
  const int left = p.n - t.n0;  // images from n0 on
  for (int task = tid; task < tasks; task += nthreads) {
    const int cc = p.div_rows.div(task), rowid = p.div_rows.mod(task, cc);
    const int seg = p.div_irb.div(rowid), ly = p.div_irb.mod(rowid, seg);
    const int y = t.y0 + ly;
    const bool ok = (left >= p.g || seg < left * p.c) && y >= 0 && y < p.h;
    const size_t plane0 = (static_cast<size_t>(t.n0) * p.c + seg) * p.h;
    // (Both sides of the choice in one address space: a pointer that may be global or shared takes generic loads.)
    const TIn* row;
    if constexpr (kRaw) {  // the band's copy keeps the 16-byte phase of its global address
      const TIn* band = x + (plane0 + t.y0) * p.w;
      row = reinterpret_cast<const TIn*>(raw + static_cast<size_t>(seg) * p.raw_band_bytes +
                                         (reinterpret_cast<uintptr_t>(band) & 15)) +
            (ok ? static_cast<size_t>(ly) * p.w : 0);
    } else {
      row = x + (ok ? (plane0 + y) * p.w : 0);
    }
    uint32_t wd[8];
    ldsm_load16<Word, TIn>(row, ok, t.x0 + 8 * cc, p.w, wd);
    ldsm_write_entry(wd, s_in + static_cast<size_t>(rowid) * p.row_bytes + cc * kLdsmEntryBytes);
  }
}

// The packed weights: the stacked layout of a plan with rp = 8 (identical to stacked_pack_weights for r = 7, 8).
inline LdsmPlan ldsm_weight_plan(const ConvPoolShape& s, Variant v) {
  LdsmPlan p{};
  std::string why;
  ConvPoolShape one = s;
  one.n = 1;
  make_ldsm_plan(one, v, 1, 1, 1 << 30, &p, &why, 4);
  return p;
}
inline size_t ldsm_weight_bytes(const ConvPoolShape& s, Variant v) {
  return static_cast<size_t>(ldsm_weight_plan(s, v).ksteps) * 32 * 16;
}
inline void ldsm_pack_weights(const ConvPoolShape& s, Variant v, const float* w, void* out) {
  const LdsmPlan p = ldsm_weight_plan(s, v);
  if (v == Variant::kMmaF16)
    stacked_pack_words<WordF16>(p, w, static_cast<uint4*>(out));
  else
    stacked_pack_words<WordBf16>(p, w, static_cast<uint4*>(out));
}

// ---- the kernel --------------------------------------------------------------------------------------------
#ifdef __CUDACC__

__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldsm_x2(uint32_t (&r)[2], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
}

// One row block x NW n-tiles over the whole K: per k-step pair one ldmatrix.x4 per n-tile (x2 for a last odd
// k-step) at base + ko[i] + 128 j, then the pair's 2 NW MMAs (kFlavor: see LdsmW5N5Flat).
template <class Word, int KS, int NW, int kFlavor = 0>
__device__ __forceinline__ void ldsm_mma(const LdsmPlan& p, const uint32_t (&a)[KS][4], const uint32_t (&ko)[KS / 2],
                                         uint32_t base, float (&acc)[NW][4]) {
  FUSED_CONV_UNROLL
  for (int j = 0; j < NW; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  if constexpr (kFlavor > 0) {
    FUSED_CONV_UNROLL
    for (int i = 0; i < KS / 2; ++i) {
      if (2 * i < p.ksteps) {
        const uint32_t addr = base + ko[i];
        uint32_t b[NW][4];
        FUSED_CONV_UNROLL
        for (int j = 0; j < NW; ++j) ldsm_x4(b[j], addr + j * kLdsmEntryBytes);
        FUSED_CONV_UNROLL
        for (int j = 0; j < NW; ++j) Word::mma(acc[j], a[2 * i], make_uint2(b[j][0], b[j][1]));
        if (2 * i + 1 < p.ksteps) {
          FUSED_CONV_UNROLL
          for (int j = 0; j < NW; ++j) Word::mma(acc[j], a[2 * i + 1], make_uint2(b[j][2], b[j][3]));
        }
      }
    }
  } else {
    FUSED_CONV_UNROLL
    for (int i = 0; i < KS / 2; ++i) {
      if (2 * i >= p.ksteps) break;
      const uint32_t addr = base + ko[i];
      if (2 * i + 1 < p.ksteps) {
        uint32_t b[NW][4];
        FUSED_CONV_UNROLL
        for (int j = 0; j < NW; ++j) ldsm_x4(b[j], addr + j * kLdsmEntryBytes);
        FUSED_CONV_UNROLL
        for (int j = 0; j < NW; ++j) Word::mma(acc[j], a[2 * i], make_uint2(b[j][0], b[j][1]));
        FUSED_CONV_UNROLL
        for (int j = 0; j < NW; ++j) Word::mma(acc[j], a[2 * i + 1], make_uint2(b[j][2], b[j][3]));
      } else {
        uint32_t b[NW][2];
        FUSED_CONV_UNROLL
        for (int j = 0; j < NW; ++j) ldsm_x2(b[j], addr + j * kLdsmEntryBytes);
        FUSED_CONV_UNROLL
        for (int j = 0; j < NW; ++j) Word::mma(acc[j], a[2 * i], make_uint2(b[j][0], b[j][1]));
      }
    }
  }
}

// CTAs per SM the register allocation must allow: the configuration's kMinBlocks for up to 8 k-steps (conv1: 5);
// for 16 (64 weight registers) 2 CTAs of up to 5 warps, else 1 (10 warps at 102 registers spilled 2.3 KB).
template <class Cfg, int KS>
constexpr int ldsm_min_blocks() {
  return KS > 8 ? (Cfg::kWarps <= 5 ? 2 : 1) : Cfg::kMinBlocks;
}

// kMode 1: one row block per unit; 2: p.rpu row blocks per unit with a running max (pools taller than dy).
template <class Cfg, class Word, class TIn, class TOut, int KS, int kMode>
__global__ void __launch_bounds__(Cfg::kWarps * 32, ldsm_min_blocks<Cfg, KS>())
    fused_conv_ldsm_kernel(const LdsmPlan p, const TIn* __restrict__ x, const uint4* __restrict__ wpk,
                           const float* __restrict__ bias, TOut* __restrict__ y) {
  constexpr int kThreads = Cfg::kWarps * 32, NW = Cfg::kNW;
  extern __shared__ __align__(16) unsigned char smem[];
  unsigned char* s_in = smem + p.off_in;
  unsigned char* s_raw = smem + p.off_raw;
  const uint32_t s_in_addr = static_cast<uint32_t>(__cvta_generic_to_shared(s_in));
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  uint32_t a[KS][4];  // the weights, for the whole kernel
  FUSED_CONV_UNROLL
  for (int ks = 0; ks < KS; ++ks) {
    const uint4 v = ks < p.ksteps ? __ldg(wpk + ks * 32 + lane) : make_uint4(0, 0, 0, 0);
    a[ks][0] = v.x, a[ks][1] = v.y, a[ks][2] = v.z, a[ks][3] = v.w;
  }
  uint32_t ko[KS / 2];  // the lane's ldmatrix row offsets per k-step pair, for the whole kernel
  FUSED_CONV_UNROLL
  for (int i = 0; i < KS / 2; ++i) ko[i] = static_cast<uint32_t>(ldsm_lane_offset(p, i, lane));

  // Prefetch (the stacked kernel's stacked_prefetch): two barriers per tile, the first makes the raw bands
  // visible and closes the previous tile's ldmatrix reads, the second closes this staging's reads of s_raw before
  // the next copy. Without it the same two barriers order the staging from global memory.
  const bool prefetch = p.prefetch;
  if (prefetch && blockIdx.x < p.tiles) stacked_prefetch(p, x, stacked_tile_coord(p, blockIdx.x), s_raw, tid, kThreads);
  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    const TileCoord t = stacked_tile_coord(p, tile);
    if (prefetch) dev::cp_async_wait<0>();
    __syncthreads();
    if (prefetch)
      ldsm_stage<Word, TIn, true>(p, x, t, s_raw, s_in, tid, kThreads);
    else
      ldsm_stage<Word, TIn, false>(p, x, t, nullptr, s_in, tid, kThreads);
    __syncthreads();
    if (prefetch && tile + static_cast<int>(gridDim.x) < p.tiles)
      stacked_prefetch(p, x, stacked_tile_coord(p, tile + gridDim.x), s_raw, tid, kThreads);
    for (int u = warp; u < p.units; u += Cfg::kWarps) {
      const StackedUnit su = stacked_unit(p, u, lane);  // gi, rb (its base is the stacked kernel's: unused)
      const PoolDst<TOut> dst = pool_dst(p, t, su, lane, bias, y);
      const uint32_t ubase = s_in_addr + static_cast<uint32_t>(ldsm_unit_offset(p, su.gi, su.rb));
      for (int q = 0; q < p.groups; ++q) {
        const int col0 = q * NW * 8;
        const uint32_t gbase = ubase + q * NW * kLdsmEntryBytes;
        float pm[NW][4];
        ldsm_mma<Word, KS, NW, LdsmFlavor<Cfg>::value>(p, a, ko, gbase, pm);
        for (int rr = 1; kMode == 2 && rr < p.rpu; ++rr) {  // a window over several row blocks: running max
          float acc[NW][4];
          ldsm_mma<Word, KS, NW, LdsmFlavor<Cfg>::value>(p, a, ko, gbase + rr * p.dy * p.row_bytes, acc);
          FUSED_CONV_UNROLL
          for (int j = 0; j < NW; ++j) FUSED_CONV_UNROLL
          for (int i = 0; i < 4; ++i) pm[j][i] = nan_max(pm[j][i], acc[j][i]);
        }
        if constexpr (LdsmFlavor<Cfg>::value == 2) __syncwarp();
        register_epilogue(p, dst, col0, lane, pm);
      }
    }
  }
}

template <class Cfg, class Word, class TIn, class TOut, int KS, int kMode>
cudaError_t launch_ldsm_ks(const LdsmPlan& p, const TIn* x, const uint4* w, const float* bias, TOut* y,
                           cudaStream_t stream) {
  return launch_persistent(fused_conv_ldsm_kernel<Cfg, Word, TIn, TOut, KS, kMode>, Cfg::kWarps * 32, p.smem_bytes,
                           p.tiles, stream, p, x, w, bias, y);
}

// x: [n][c][h][w] TIn; packed_w: ldsm_pack_weights(s, v) on the device (v the precision of Word: WordBf16 or
// WordF16); bias: [k] fp32 or nullptr; y: [n][k][ph][pw] TOut. `plan` from make_ldsm_plan with Cfg::kNW.
template <class Cfg, class Word, class TIn, class TOut>
cudaError_t launch_fused_conv_ldsm(const LdsmPlan& plan, const TIn* x, const void* packed_w, const float* bias, TOut* y,
                                   cudaStream_t stream) {
  if (plan.nw != Cfg::kNW || plan.ksteps > kStackedMaxKSteps || plan.e != 2 || !plan.reg_pool)
    return cudaErrorInvalidValue;
  LdsmPlan p = plan;
  // The prefetch copies whole 16-byte chunks from the boundary before each band: x must start on one, and the
  // raw buffer must have been sized for TIn.
  if ((reinterpret_cast<uintptr_t>(x) & 15) != 0 || p.in_bytes < static_cast<int>(sizeof(TIn))) p.prefetch = 0;
  const uint4* w = static_cast<const uint4*>(packed_w);
  const bool one = p.rpu == 1;
  if (p.ksteps <= 6)
    return one ? launch_ldsm_ks<Cfg, Word, TIn, TOut, 6, 1>(p, x, w, bias, y, stream)
               : launch_ldsm_ks<Cfg, Word, TIn, TOut, 6, 2>(p, x, w, bias, y, stream);
  if (p.ksteps <= 8)
    return one ? launch_ldsm_ks<Cfg, Word, TIn, TOut, 8, 1>(p, x, w, bias, y, stream)
               : launch_ldsm_ks<Cfg, Word, TIn, TOut, 8, 2>(p, x, w, bias, y, stream);
  return one ? launch_ldsm_ks<Cfg, Word, TIn, TOut, 16, 1>(p, x, w, bias, y, stream)
             : launch_ldsm_ks<Cfg, Word, TIn, TOut, 16, 2>(p, x, w, bias, y, stream);
}

// The same, planning for the current device first (the lab's entry point).
template <class Cfg, class Word, class TIn, class TOut>
cudaError_t launch_fused_conv_ldsm(const ConvPoolShape& s, Variant v, const TIn* x, const void* packed_w,
                                   const float* bias, TOut* y, cudaStream_t stream) {
  DeviceLimits d;
  if (cudaError_t err = device_limits(&d)) return err;
  std::string why;
  LdsmPlan p;
  if (!supported(s, &why, d.smem_optin) ||
      !make_ldsm_plan(s, v, Cfg::kNW, Cfg::kTargetPixels, d.smem_optin, &p, &why, sizeof(TIn)))
    return cudaErrorInvalidValue;
  return launch_fused_conv_ldsm<Cfg, Word, TIn, TOut>(p, x, packed_w, bias, y, stream);
}

#endif  // __CUDACC__

}  // namespace ie::fused_conv
