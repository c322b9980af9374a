// Strict fp32 (FFMA) Conv + bias + ReLU + MaxPool with the input staged column by column: the column kernel of
// ie.FusedConv. CUDA headers only, like fused_conv_cuda.cuh, whose tile plan, tile walk and epilogue it shares.
//
// Why columns. The pixels-on-M kernel's FFMA variant gives a lane 1 x 4 conv outputs x 4 channels: one LDS and
// one weight load per 16 FFMA, about a fifth of the FFMA rate (conv1 at batch 10000: 10 TFLOP/s, 2.4 ms on an
// H200). Here a lane owns RO consecutive conv rows of one column x 4 channels (RO = 8 or 16: 32 or 64
// accumulators) and slides down the column: for each input channel and kernel column kx it loads the RO + r - 1
// input values of its column (staged column-major, so they are consecutive words: 128-bit loads), then for each
// kernel row ky one float4 of weights (4 channels, a broadcast load) feeds RO x 4 FFMA. Per kx: ceil((RO+r-1)/4)
// + r loads for RO x r x 4 FFMA (RO = 16, r = 7: 13 loads for 448 FFMA).
//
// Layout. Staged column (gi, ci, col) is ws words (ws = 4 mod 8: eight lanes' 128-bit loads of consecutive
// columns fall in eight distinct bank quads), rows 0 .. irb-1 of the band (zero outside the image), irb covering
// every lane's rows (crb rounded up to RO, + r - 1, to whole float4). Lanes take consecutive columns of a row
// group (coalesced staging, conflict-free loads), row groups of RO conv rows within one image; the conv tile in
// shared memory and the pooled epilogue are the pixels-on-M kernel's (pool_store).
// Variants and figures: tests/kernels/fused_conv_lab.cu.
#pragma once

#include "layers/fused_conv/fused_conv_cuda.cuh"

namespace ie::fused_conv {

// Tile configurations: kRows conv rows per lane (a multiple of 4), kWarps per CTA, about kTargetPixels conv
// outputs per tile (the band's conv rows preferably a multiple of kRows).
struct ColumnTileR8W4 {
  static constexpr const char* kName = "cols_r8_w4_px3200";
  static constexpr int kRows = 8, kWarps = 4, kTargetPixels = 3200;
};
struct ColumnTileR8W8 {
  static constexpr const char* kName = "cols_r8_w8_px6400";
  static constexpr int kRows = 8, kWarps = 8, kTargetPixels = 6400;
};
struct ColumnTileR8W5 {  // conv1: an image's 25 warp blocks in 5 rounds of 5 warps
  static constexpr const char* kName = "cols_r8_w5_px6400";
  static constexpr int kRows = 8, kWarps = 5, kTargetPixels = 6400;
};
struct ColumnTileR16W4 {
  static constexpr const char* kName = "cols_r16_w4_px2048";
  static constexpr int kRows = 16, kWarps = 4, kTargetPixels = 2048;
};
struct ColumnTileR16W8 {
  static constexpr const char* kName = "cols_r16_w8_px1024";
  static constexpr int kRows = 16, kWarps = 8, kTargetPixels = 1024;
};

// Sizes a column-kernel tile of g images x pb pooled rows x pcb pooled columns (`p` holds the conv sizes).
// ws is the staged column's stride, plane = staged columns x ws; the weights (ffma packing) lead shared memory.
inline void size_column_tiles(TilePlan& p, int rows_per_lane, int g, int pb, int pcb) {
  p.g = g, p.pb = pb, p.pcb = pcb;
  p.crb = (pb - 1) * p.ps + p.win;
  p.cwk = (pcb - 1) * p.ps + p.win;
  p.irb = round_up(round_up(p.crb, rows_per_lane) + p.r - 1, 4);
  p.ws = p.irb % 8 ? p.irb : p.irb + 4;
  p.plane = (p.cwk + p.r - 1) * p.ws;
  p.img_words = p.c * p.plane;
  p.pixels = g * p.crb * p.cwk;
  p.mtiles = 0;
  // Non-overlapping pools (no pool: win = ps = 1) are max-pooled down the column in registers (vpool 1: the conv
  // tile holds pooled rows only); windows of 1, 2, 4 .. 32 columns also across the window's lanes (vpool 2: a
  // window's columns are consecutive lanes of one warp), the pooled outputs stored from registers, no conv tile.
  const bool rows = p.win == p.ps && rows_per_lane % p.win == 0;
  p.vpool = !rows ? 0 : (p.win & (p.win - 1)) == 0 && p.win <= 32 ? 2 : 1;
  p.ct_stride = round_up(g * (p.vpool ? p.pb : p.crb) * p.cwk, 4) + 4;
  p.tiles_y = ceil_div(p.ph, pb);
  p.tiles_x = ceil_div(p.pw, pcb);
  p.tiles = ceil_div(p.n, g) * p.tiles_y * p.tiles_x;
  p.w_in_smem = 1;
  p.off_w = 0;
  p.off_kofs = p.c * p.r * p.r * p.np * 4;
  p.off_in = round_up(p.off_kofs, 16);
  p.off_ct = round_up(p.off_in + g * p.img_words * 4, 16);
  p.smem_bytes = round_up(p.off_ct + (p.vpool == 2 ? 0 : p.k * p.ct_stride * 4), 16);
}

// The column kernel's plan; false with the reason when the shape's weights and one pooled output's tile do not fit
// in `smem_limit` bytes (the pixels-on-M kernel then serves it).
inline bool make_column_plan(const ConvPoolShape& s, int rows_per_lane, int target_pixels, int smem_limit,
                             TilePlan* out, std::string* why) {
  TilePlan p{};
  set_conv_sizes(s, p);
  p.e = 1, p.rp = s.r, p.kchunks = 0, p.np = round_up(s.k, 4);
  auto size = [rows_per_lane](TilePlan& q, const TileSize& t) {
    size_column_tiles(q, rows_per_lane, t.g, t.pb, t.pcb);
  };
  if (!fit_tile(p, target_pixels, rows_per_lane, smem_limit, size, why)) return false;
  *out = p;
  return true;
}

// Warp blocks of a tile: per channel quad, the lanes of every (image, row group, column) item in 32s.
__host__ __device__ inline int column_items(const TilePlan& p, int rows_per_lane) {
  return p.g * ((p.crb + rows_per_lane - 1) / rows_per_lane) * p.cwk;
}
__host__ __device__ inline int column_blocks(const TilePlan& p, int rows_per_lane) {
  return (p.np / 4) * ((column_items(p, rows_per_lane) + 31) / 32);
}

// Stage the tile's input column-major: word (gi, ci, col, row) = input (t.n0 + gi, ci, t.y0 + row, t.x0 + col),
// zero outside the image and past the batch. A warp takes 4 staged rows of one (image, channel); its lanes take
// columns (coalesced row loads) and store each column's 4 values as one float4.
template <class TIn>
__host__ __device__ inline void stage_columns(const TilePlan& p, const TIn* __restrict__ x, const TileCoord& t,
                                              float* __restrict__ s_in, int warp, int nwarps, int lane) {
  const int quads = p.irb / 4, units = p.g * p.c * quads, cols = p.cwk + p.r - 1;
  for (int u = warp; u < units; u += nwarps) {
    const int q = u % quads, gc = u / quads;
    const int ci = gc % p.c, img = t.n0 + gc / p.c;
    const TIn* src[4];
    bool ok[4];
    FUSED_CONV_UNROLL
    for (int j = 0; j < 4; ++j) {
      const int y = t.y0 + q * 4 + j;
      ok[j] = img < p.n && y >= 0 && y < p.h;
      src[j] = ok[j] ? x + ((static_cast<size_t>(img) * p.c + ci) * p.h + y) * p.w : x;
    }
    // Indexed as float4 (plane and ws are multiples of 4): a float* cast kept ptxas to four 32-bit stores.
    float4* dst = reinterpret_cast<float4*>(s_in) + (static_cast<size_t>(gc) * p.plane) / 4 + q;
    for (int col = lane; col < cols; col += 32) {
      const int gx = t.x0 + col;
      const bool in_x = gx >= 0 && gx < p.w;
      float v[4];
      FUSED_CONV_UNROLL
      for (int j = 0; j < 4; ++j) v[j] = ok[j] && in_x ? to_float(src[j][gx]) : 0.f;
      dst[col * (p.ws / 4)] = make_float4(v[0], v[1], v[2], v[3]);
    }
  }
}

// The weights in shared memory as the column kernel reads them: [ci][kx][quad][ky] float4, so that one kx's r
// loads of a quad are consecutive (immediate offsets) instead of r*np/4 float4 apart. w4: the ffma packing,
// [ci][ky][kx][np] (fused_conv_cuda.cuh's pack_weights), np/4 float4 per tap.
__host__ __device__ inline void stage_column_weights(const TilePlan& p, const float4* __restrict__ w4,
                                                     float4* __restrict__ s_w, int tid, int nthreads) {
  const int nq = p.np / 4, total = p.c * p.r * p.r * nq;
  for (int i = tid; i < total; i += nthreads) {  // i indexes w4: ((ci * r + ky) * r + kx) * nq + q
    const int q = i % nq, tap = i / nq, kx = tap % p.r, cy = tap / p.r, ky = cy % p.r, ci = cy / p.r;
    s_w[((ci * p.r + kx) * nq + q) * p.r + ky] = w4[i];
  }
}

// Warp block `blk` (see column_blocks): the lane's item is RO conv rows from row0 of column col of image gi, for
// channels 4q .. 4q+3. s_w: the weights as stage_column_weights leaves them. R = p.r. The conv values
// go to the conv tile ct, or (vpool 2, device only: every lane of the warp must arrive) pooled to y. kWin: the
// pool window known at compile time (2, 4: the maxima and shuffles unrolled), or 0 (p.win at run time).
template <int R, int RO, int kWin, class TOut>
__host__ __device__ inline void column_block(const TilePlan& p, const float* __restrict__ s_in,
                                             const float4* __restrict__ s_w, float* __restrict__ ct, int blk, int lane,
                                             const TileCoord& t, const float* __restrict__ bias, TOut* __restrict__ y) {
  constexpr int kIn = (RO + R - 1 + 3) / 4 * 4;  // input values per column, whole float4
  const int items = column_items(p, RO), per_q = (items + 31) / 32, nq = p.np / 4;
  const int q = blk / per_q, item_lane = (blk - q * per_q) * 32 + lane;
  // Lanes past the tile's items compute the last item again and store nothing (vpool 2 needs them in the shuffles;
  // items and block starts are multiples of the window, so no window mixes the two).
  const bool valid = item_lane < items;
  const int item = imin(item_lane, items - 1);
  const int groups = (p.crb + RO - 1) / RO;
  const int col = item % p.cwk, rest = item / p.cwk;
  const int gi = rest / groups, row0 = (rest - gi * groups) * RO;
  const float* src = s_in + gi * p.img_words + col * p.ws + row0;
  float acc[RO][4] = {};
  for (int ci = 0; ci < p.c; ++ci) {
    for (int kx = 0; kx < R; ++kx) {
      const float4* colv = reinterpret_cast<const float4*>(src + ci * p.plane + kx * p.ws);
      float in[kIn];
      FUSED_CONV_UNROLL
      for (int j = 0; j < kIn / 4; ++j) {
        const float4 v = colv[j];
        in[4 * j] = v.x, in[4 * j + 1] = v.y, in[4 * j + 2] = v.z, in[4 * j + 3] = v.w;
      }
      const float4* wk = s_w + ((ci * R + kx) * nq + q) * R;
      FUSED_CONV_UNROLL
      for (int ky = 0; ky < R; ++ky) {
        const float4 wv = wk[ky];
        FUSED_CONV_UNROLL
        for (int i = 0; i < RO; ++i) {
          acc[i][0] = fmaf(in[i + ky], wv.x, acc[i][0]);
          acc[i][1] = fmaf(in[i + ky], wv.y, acc[i][1]);
          acc[i][2] = fmaf(in[i + ky], wv.z, acc[i][2]);
          acc[i][3] = fmaf(in[i + ky], wv.w, acc[i][3]);
        }
      }
    }
  }
  if (p.vpool) {  // row0 is a multiple of the window: each window's max down the lane's rows
    const int win = kWin ? kWin : p.win, pr0 = row0 / win;
    // vpool 2: across the window's lanes too, the window's first lane stores to y; vpool 1: every lane to ct.
    const int img = t.n0 + gi, pcol = t.tx * p.pcb + col / win;
    const bool to_y = p.vpool == 2;
    const bool store = valid && (!to_y || (col % win == 0 && img < p.n && pcol < p.pw));
    const int pooled = imin(RO / win, imin(p.pb - pr0, to_y ? p.ph - t.ty * p.pb - pr0 : p.pb));
    // 8-row lanes: channel 4q's first pooled row in y or ct and the strides of a channel and a row there, a store
    // being one offset plus two small products; 16-row lanes (127 registers) index each store in full. Lab, H200,
    // batch 10000 (tools/results/h200/head_mma/call_b): conv1 on cols_r8_w8 0.950 -> 0.867 ms with the 64-register
    // cap below, conv2 on cols_r16_w8 1.497 -> 1.557 with the one-offset form, hence 8 rows only.
    constexpr bool kOneBase = RO <= 8;
    const size_t base = to_y ? ((static_cast<size_t>(img) * p.k + q * 4) * p.ph + t.ty * p.pb + pr0) * p.pw + pcol
                             : static_cast<size_t>(q * 4 * p.ct_stride + (gi * p.pb + pr0) * p.cwk + col);
    const int ch_stride = to_y ? p.ph * p.pw : p.ct_stride, row_stride = to_y ? p.pw : p.cwk;
    FUSED_CONV_UNROLL
    for (int j = 0; j < 4; ++j) {
      const int ch = q * 4 + j;
      if (ch >= p.k) break;
      const float b = to_y && bias ? bias[ch] : 0.f;
      float m = acc[0][j];
      int in_window = 0, pr = 0;
      FUSED_CONV_UNROLL
      for (int i = 0; i < RO; ++i) {
        m = in_window == 0 ? acc[i][j] : nan_max(m, acc[i][j]);
        if (++in_window < win) continue;
#ifdef __CUDA_ARCH__
        if (to_y) {
          FUSED_CONV_UNROLL
          for (int sh = 1; sh < win; sh <<= 1) m = nan_max(m, __shfl_xor_sync(0xffffffffu, m, sh));
        }
#endif
        if (store && pr < pooled) {
          if constexpr (kOneBase) {
            const size_t at = base + j * ch_stride + pr * row_stride;
            if (to_y)
              y[at] = from_float<TOut>(nan_relu(m + b));
            else
              ct[at] = m;
          } else if (to_y) {
            y[((static_cast<size_t>(img) * p.k + ch) * p.ph + t.ty * p.pb + pr0 + pr) * p.pw + pcol] =
                from_float<TOut>(nan_relu(m + b));
          } else {
            ct[ch * p.ct_stride + (gi * p.pb + pr0 + pr) * p.cwk + col] = m;
          }
        }
        in_window = 0, ++pr;
      }
    }
    return;
  }
  if (!valid) return;
  float* dst = ct + (gi * p.crb + row0) * p.cwk + col;
  FUSED_CONV_UNROLL
  for (int i = 0; i < RO; ++i) {
    if (row0 + i >= p.crb) break;
    FUSED_CONV_UNROLL
    for (int j = 0; j < 4; ++j)
      if (q * 4 + j < p.k) dst[(q * 4 + j) * p.ct_stride + i * p.cwk] = acc[i][j];
  }
}

#ifdef __CUDACC__

// 8-row configurations capped at 64 registers (4 CTAs of 8 warps per SM instead of 3 at 66; a few spilled bytes):
// see column_block's epilogue for the figures. 0: no minimum (the same code as without one).
template <class Cfg>
constexpr int column_min_blocks() {
  return Cfg::kRows == 8 ? 1024 / (Cfg::kWarps * 32) : 0;
}

template <class Cfg, int R, int kWin, class TIn, class TOut>
__global__ void __launch_bounds__(Cfg::kWarps * 32, column_min_blocks<Cfg>())
    fused_conv_columns_kernel(const TilePlan p, const TIn* __restrict__ x, const float4* __restrict__ w4,
                              const float* __restrict__ bias, TOut* __restrict__ y) {
  extern __shared__ __align__(16) unsigned char smem[];
  float4* s_w = reinterpret_cast<float4*>(smem + p.off_w);
  float* s_in = reinterpret_cast<float*>(smem + p.off_in);
  float* s_ct = reinterpret_cast<float*>(smem + p.off_ct);
  constexpr int kThreads = Cfg::kWarps * 32;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  stage_column_weights(p, w4, s_w, tid, kThreads);
  const int blocks = column_blocks(p, Cfg::kRows);
  for (int tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    const TileCoord t = tile_coord(p, tile);
    stage_columns(p, x, t, s_in, warp, Cfg::kWarps, lane);
    __syncthreads();  // also orders the weight copy before the first block
    for (int b = warp; b < blocks; b += Cfg::kWarps)
      column_block<R, Cfg::kRows, kWin>(p, s_in, s_w, s_ct, b, lane, t, bias, y);
    __syncthreads();
    if (p.vpool != 2) pool_store(p, s_ct, bias, y, t, tid, kThreads);  // s_ct: next written after a barrier
  }
}

// x: [n][c][h][w] TIn; packed_w: pack_weights_ffma output on the device (16-byte aligned); bias: [k] fp32 or
// nullptr; y: [n][k][ph][pw] TOut. cudaErrorInvalidValue when the plan does not fit (make_column_plan says why).
template <class Cfg, class TIn, class TOut>
cudaError_t launch_fused_conv_columns(const ConvPoolShape& s, const TIn* x, const void* packed_w, const float* bias,
                                      TOut* y, cudaStream_t stream) {
  DeviceLimits d;
  if (cudaError_t err = device_limits(&d)) return err;
  TilePlan p;
  if (!make_column_plan(s, Cfg::kRows, Cfg::kTargetPixels, d.smem_optin, &p, nullptr)) return cudaErrorInvalidValue;
  const float4* w = static_cast<const float4*>(packed_w);
  const int win = p.vpool == 2 && (p.win == 2 || p.win == 4) ? p.win : 0;
  switch (p.r * 8 + win) {
#define IE_COLUMNS_CASE(R, WIN)                                                                                    \
  case R * 8 + WIN:                                                                                                \
    return launch_persistent(fused_conv_columns_kernel<Cfg, R, WIN, TIn, TOut>, p, Cfg::kWarps * 32, stream, x, w, \
                             bias, y);
#define IE_COLUMNS_CASES(R) IE_COLUMNS_CASE(R, 0) IE_COLUMNS_CASE(R, 2) IE_COLUMNS_CASE(R, 4)
    IE_COLUMNS_CASES(3)
    IE_COLUMNS_CASES(4)
    IE_COLUMNS_CASES(5)
    IE_COLUMNS_CASES(6)
    IE_COLUMNS_CASES(7)
#undef IE_COLUMNS_CASES
#undef IE_COLUMNS_CASE
    default:
      return cudaErrorInvalidValue;
  }
}

#endif  // __CUDACC__

}  // namespace ie::fused_conv
