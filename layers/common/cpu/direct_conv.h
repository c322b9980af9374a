// Direct fp32 convolution for few channels on the CPU, with bias, ReLU and max pooling fused, for one image (or a
// band of its output rows) at a time. Depends only on the standard library and the AVX2/FMA intrinsics; other
// targets get the same loops in plain C++. direct_conv_avx512.h has the same kernels 16 floats wide (chosen at run
// time where the processor has AVX-512), over the same driver (rows_impl), layout and scratch, with the same bits.
//
// Shapes served: 2-D, group 1, stride 1, dilation 1, kernel width 3..7 and height 1..7, any zero padding,
// 1..16 input and 1..64 output channels, optional max pool (any window, stride, pads below the window, ceil mode;
// no dilation), activation none or ReLU. direct_conv_fits() says whether a shape is served.
//
// Work split:
// - The tiles read the input in place when it needs no padding and every vector read stays inside its row (both
//   layers of the conv net); otherwise the band of input rows a call needs is copied once into a zero-padded
//   scratch (conv padding + a right margin wide enough for whole vectors). Either way the inner loops have no
//   edge tests and every load is in bounds.
// - Register tile: 4 output channels x NV vectors of 8 output columns of one conv row (NV <= 3; 2 by default:
//   8 accumulators, 2 input vectors and 1 broadcast weight). Each input vector loaded serves 4 FMAs; the 4 weights
//   of a tap are consecutive in the packed layout [M/4][C][KH][KW][4] (one broadcast each). This suits very few
//   output channels (conv1 has 4). onnxruntime's MLAS does the opposite for its NCHW-input kernel: vectors over
//   blocks of 8 output channels (NCHWc output) with the input broadcast, which fits 8 or more output channels
//   better (conv2's 16) and is the next variant worth a lab entry.
// - Conv rows go to a ring of `pool_h` rows (L1-resident); a pooled row is made as soon as its window's rows are
//   there: vertical max over the rows (vectors), horizontal max, then bias and ReLU on the pooled values only
//   (max commutes with adding a per-channel constant and with ReLU, both monotone), so the full-resolution map
//   never leaves the ring. Without a pool the ring has one row and the same step adds bias and ReLU. Only the
//   conv rows and columns some pool window reads are computed (conv2 of the conv net: 32x32 of 34x34).
// - Max is NaN-propagating as in the reference pool (a NaN anywhere in a window wins).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define IE_DIRECT_CONV_AVX2 1
#else
#define IE_DIRECT_CONV_AVX2 0
#endif

namespace ie::cpu {

/// One image's problem. Pool fields matter only when `pool` is set; pool_out_* come from the pool's own rules
/// (ceil mode included) and windows are clipped to the conv output.
struct DirectConvShape {
  int64_t in_channels = 0, out_channels = 0, in_h = 0, in_w = 0, kernel_h = 0, kernel_w = 0;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool relu = false;
  bool pool = false;
  int64_t pool_h = 1, pool_w = 1, pool_stride_h = 1, pool_stride_w = 1, pool_pad_top = 0, pool_pad_left = 0;
  int64_t pool_out_h = 0, pool_out_w = 0;

  int64_t conv_h() const { return in_h + pad_top + pad_bottom - kernel_h + 1; }
  int64_t conv_w() const { return in_w + pad_left + pad_right - kernel_w + 1; }
  int64_t out_h() const { return pool ? pool_out_h : conv_h(); }
  int64_t out_w() const { return pool ? pool_out_w : conv_w(); }
  /// Conv columns some output reads: a floor-mode pool drops the last ones (conv2 of the conv net: 32 of 34).
  int64_t used_conv_w() const {
    return pool ? std::min(conv_w(), (pool_out_w - 1) * pool_stride_w - pool_pad_left + pool_w) : conv_w();
  }
};

constexpr int64_t kDirectConvVec = 8;     // floats per vector (AVX2)
constexpr int64_t kDirectConvBlockM = 4;  // output channels per register tile

/// True when direct_conv_rows serves this shape.
inline bool direct_conv_fits(const DirectConvShape& s) {
  const bool conv_ok = s.in_channels >= 1 && s.in_channels <= 16 && s.out_channels >= 1 && s.out_channels <= 64 &&
                       s.kernel_w >= 3 && s.kernel_w <= 7 && s.kernel_h >= 1 && s.kernel_h <= 7 && s.pad_top >= 0 &&
                       s.pad_left >= 0 && s.pad_bottom >= 0 && s.pad_right >= 0 && s.conv_h() >= 1 && s.conv_w() >= 1;
  const bool pool_ok = !s.pool || (s.pool_h >= 1 && s.pool_w >= 1 && s.pool_stride_h >= 1 && s.pool_stride_w >= 1 &&
                                   s.pool_pad_top >= 0 && s.pool_pad_left >= 0 && s.pool_pad_top < s.pool_h &&
                                   s.pool_pad_left < s.pool_w && s.pool_out_h >= 1 && s.pool_out_w >= 1);
  return conv_ok && pool_ok;
}

/// Sizes of the packed weights and of the scratch one call needs.
struct DirectConvLayout {
  int64_t m4 = 0;         // output channels rounded up to kDirectConvBlockM
  int64_t conv_w8 = 0;    // used conv row length rounded up to whole vectors
  int64_t padded_w = 0;   // padded input row length: whole input rows and the tiles' reads, in vectors
  int64_t padded_h = 0;   // most padded input rows a call copies (conv_h + kernel_h - 1)
  int64_t ring_rows = 0;  // conv rows kept for the pool window
  int64_t packed_floats = 0;
  int64_t scratch_floats = 0;  // including the slack for 64-byte alignment
};

inline DirectConvLayout direct_conv_layout(const DirectConvShape& s) {
  DirectConvLayout l;
  auto round_up = [](int64_t v, int64_t m) { return (v + m - 1) / m * m; };
  l.m4 = round_up(s.out_channels, kDirectConvBlockM);
  l.conv_w8 = round_up(s.used_conv_w(), kDirectConvVec);
  l.padded_w = round_up(std::max(l.conv_w8 + s.kernel_w - 1, s.pad_left + s.in_w), kDirectConvVec);
  l.padded_h = s.conv_h() + s.kernel_h - 1;
  l.ring_rows = s.pool ? s.pool_h : 1;
  l.packed_floats = l.m4 * s.in_channels * s.kernel_h * s.kernel_w;
  l.scratch_floats = s.in_channels * l.padded_h * l.padded_w + l.ring_rows * l.m4 * l.conv_w8 + l.conv_w8 + 32;
  return l;
}

/// Packs W [M, C, KH, KW] into [M/4][C][KH][KW][4] (missing channels zero) for the register tile.
inline std::vector<float> direct_conv_pack(const DirectConvShape& s, const float* w) {
  const DirectConvLayout l = direct_conv_layout(s);
  std::vector<float> packed(static_cast<size_t>(l.packed_floats), 0.0f);
  const int64_t taps = s.in_channels * s.kernel_h * s.kernel_w;
  for (int64_t m = 0; m < s.out_channels; ++m)
    for (int64_t t = 0; t < taps; ++t)
      packed[static_cast<size_t>(((m / kDirectConvBlockM) * taps + t) * kDirectConvBlockM + m % kDirectConvBlockM)] =
          w[m * taps + t];
  return packed;
}

namespace direct_conv_detail {

/// Where one conv row's tile reads and writes.
struct TileArgs {
  const float* in;     // padded input at (channel 0, first tap row, first column of the tile)
  int64_t in_row;      // floats between padded rows
  int64_t in_channel;  // floats between input channels
  int64_t channels;    // input channels
  int64_t kernel_h;
  const float* w;       // packed weights of this block of 4 output channels
  float* out;           // ring slot at (first channel of the block, first column of the tile)
  int64_t out_channel;  // floats between output channels in the slot
};

#if IE_DIRECT_CONV_AVX2
// 4 output channels x NV vectors of 8 columns, accumulated over every input channel and tap, then stored.
// The accumulators are 4 one-dimensional arrays and the tap rows one flat do-while loop: with a __m256[4][NV]
// array in two nested for loops GCC 12 kept the accumulators in memory too (stores, and for NV = 3 reloads, in
// every iteration of the tap-row loop).
template <int KW, int NV>
inline void conv_tile(const TileArgs& a) {
  __m256 acc0[NV], acc1[NV], acc2[NV], acc3[NV];
  for (int j = 0; j < NV; ++j) acc0[j] = _mm256_setzero_ps(), acc1[j] = acc0[j], acc2[j] = acc0[j], acc3[j] = acc0[j];
  const float* w = a.w;
  const float* row = a.in;
  const int64_t rows = a.channels * a.kernel_h, next_channel = a.in_channel - a.kernel_h * a.in_row;
  int64_t r = 0, ky = 0;
  do {  // rows >= 1: no zero-trip path, for which GCC kept a copy of the accumulators in memory
    for (int kx = 0; kx < KW; ++kx) {
      __m256 v[NV];
      for (int j = 0; j < NV; ++j) v[j] = _mm256_loadu_ps(row + kx + j * kDirectConvVec);
      const float* wk = w + kx * kDirectConvBlockM;
      __m256 wb = _mm256_broadcast_ss(wk);
      for (int j = 0; j < NV; ++j) acc0[j] = _mm256_fmadd_ps(v[j], wb, acc0[j]);
      wb = _mm256_broadcast_ss(wk + 1);
      for (int j = 0; j < NV; ++j) acc1[j] = _mm256_fmadd_ps(v[j], wb, acc1[j]);
      wb = _mm256_broadcast_ss(wk + 2);
      for (int j = 0; j < NV; ++j) acc2[j] = _mm256_fmadd_ps(v[j], wb, acc2[j]);
      wb = _mm256_broadcast_ss(wk + 3);
      for (int j = 0; j < NV; ++j) acc3[j] = _mm256_fmadd_ps(v[j], wb, acc3[j]);
    }
    row += a.in_row;
    w += KW * kDirectConvBlockM;
    if (++ky == a.kernel_h) ky = 0, row += next_channel;
  } while (++r < rows);
  for (int j = 0; j < NV; ++j) {
    _mm256_store_ps(a.out + j * kDirectConvVec, acc0[j]);
    _mm256_store_ps(a.out + a.out_channel + j * kDirectConvVec, acc1[j]);
    _mm256_store_ps(a.out + 2 * a.out_channel + j * kDirectConvVec, acc2[j]);
    _mm256_store_ps(a.out + 3 * a.out_channel + j * kDirectConvVec, acc3[j]);
  }
}
#else
template <int KW, int NV>
inline void conv_tile(const TileArgs& a) {
  constexpr int kCols = NV * static_cast<int>(kDirectConvVec);
  float acc[kDirectConvBlockM][kCols] = {};
  const float* w = a.w;
  for (int64_t c = 0; c < a.channels; ++c) {
    const float* row = a.in + c * a.in_channel;
    for (int64_t ky = 0; ky < a.kernel_h; ++ky, row += a.in_row, w += KW * kDirectConvBlockM)
      for (int kx = 0; kx < KW; ++kx)
        for (int m = 0; m < kDirectConvBlockM; ++m)
          for (int x = 0; x < kCols; ++x) acc[m][x] += row[kx + x] * w[kx * kDirectConvBlockM + m];
  }
  for (int m = 0; m < kDirectConvBlockM; ++m)
    for (int x = 0; x < kCols; ++x) a.out[m * a.out_channel + x] = acc[m][x];
}
#endif

/// One conv row (all channel blocks, all column tiles) into a ring slot [m4][conv_w8]. The row's vectors are split
/// into as few tiles of at most NVMAX vectors as possible, of near-equal sizes (10 vectors as 3+3+2+2, not
/// 3+3+3+1): a 1-vector tile has 4 accumulator chains, too few to cover the FMA latency.
template <int KW, int NVMAX>
void conv_row(TileArgs a, int64_t m4, int64_t conv_w8, int64_t packed_block) {
  const int64_t nvec = conv_w8 / kDirectConvVec;
  const int64_t tiles = (nvec + NVMAX - 1) / NVMAX, small = nvec / tiles, big_tiles = nvec % tiles;
  const float* in0 = a.in;
  float* out0 = a.out;
  for (int64_t mb = 0; mb < m4; mb += kDirectConvBlockM) {
    int64_t j = 0;
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t n = small + (t < big_tiles ? 1 : 0);
      a.in = in0 + j * kDirectConvVec;
      a.out = out0 + mb * a.out_channel + j * kDirectConvVec;
      if (n >= NVMAX)
        conv_tile<KW, NVMAX>(a);
      else if (NVMAX > 2 && n == 2)
        conv_tile<KW, (NVMAX > 2 ? 2 : 1)>(a);
      else
        conv_tile<KW, 1>(a);
      j += n;
    }
    a.w += packed_block;
  }
}

using ConvRowFn = void (*)(TileArgs, int64_t, int64_t, int64_t);

template <int NVMAX>
inline ConvRowFn conv_row_for(int64_t kernel_w) {
  switch (kernel_w) {
    case 3:
      return conv_row<3, NVMAX>;
    case 4:
      return conv_row<4, NVMAX>;
    case 5:
      return conv_row<5, NVMAX>;
    case 6:
      return conv_row<6, NVMAX>;
    default:
      return conv_row<7, NVMAX>;
  }
}

inline bool is_nan(float v) { return v != v; }

/// dst = max(a, b) over n floats (n a multiple of 8, all 32-byte aligned; dst may be a), a NaN in either winning.
inline void max_of(float* dst, const float* a, const float* b, int64_t n) {
#if IE_DIRECT_CONV_AVX2
  for (int64_t i = 0; i < n; i += kDirectConvVec) {
    const __m256 va = _mm256_load_ps(a + i), vb = _mm256_load_ps(b + i);
    const __m256 m = _mm256_max_ps(va, vb);  // vb when either is NaN
    _mm256_store_ps(dst + i, _mm256_blendv_ps(m, va, _mm256_cmp_ps(va, va, _CMP_UNORD_Q)));
  }
#else
  for (int64_t i = 0; i < n; ++i) dst[i] = (b[i] > a[i] || (is_nan(b[i]) && !is_nan(a[i]))) ? b[i] : a[i];
#endif
}

inline float finish(float v, float bias, bool relu) {
  v += bias;
  return relu && v < 0.0f ? 0.0f : v;  // keeps NaN, as the unfused Relu does
}

/// True when the horizontal pool is windows of 2 or 4 side by side from column 0, all inside the conv row: then
/// it is done as one or two vectorized pair-max passes.
inline bool pairwise_pool(const DirectConvShape& s) {
  return s.pool && s.pool_pad_left == 0 && s.pool_w == s.pool_stride_w && (s.pool_w == 2 || s.pool_w == 4) &&
         s.pool_out_w * s.pool_w <= s.conv_w();
}

/// dst[i] = max(src[2i], src[2i+1]) for i < n/2 (n a multiple of 16; dst may be src), a NaN winning.
inline void pair_max(const float* src, float* dst, int64_t n) {
#if IE_DIRECT_CONV_AVX2
  for (int64_t i = 0; i < n; i += 2 * kDirectConvVec) {
    const __m256 a = _mm256_loadu_ps(src + i), b = _mm256_loadu_ps(src + i + kDirectConvVec);
    const __m256 even = _mm256_shuffle_ps(a, b, 0x88), odd = _mm256_shuffle_ps(a, b, 0xDD);  // per 128-bit lane
    const __m256 m = _mm256_blendv_ps(_mm256_max_ps(even, odd), even, _mm256_cmp_ps(even, even, _CMP_UNORD_Q));
    _mm256_storeu_ps(dst + i / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(m), 0xD8)));
  }
#else
  for (int64_t i = 0; i < n / 2; ++i) {
    const float a = src[2 * i], b = src[2 * i + 1];
    dst[i] = (b > a || (is_nan(b) && !is_nan(a))) ? b : a;
  }
#endif
}

/// out[i] = finish(v[i]) for i < n.
inline void finish_row(const float* v, float bias, bool relu, float* out, int64_t n) {
  int64_t i = 0;
#if IE_DIRECT_CONV_AVX2
  const __m256 b = _mm256_set1_ps(bias), zero = _mm256_setzero_ps();
  for (; i + kDirectConvVec <= n; i += kDirectConvVec) {
    __m256 t = _mm256_add_ps(_mm256_loadu_ps(v + i), b);
    if (relu) t = _mm256_max_ps(zero, t);  // the second operand when NaN: keeps NaN
    _mm256_storeu_ps(out + i, t);
  }
#endif
  for (; i < n; ++i) out[i] = finish(v[i], bias, relu);
}

/// One output row of one channel from the vertical max `v` (`width` floats readable, a multiple of 16):
/// horizontal window max (into `work`, which may be v), bias, ReLU.
template <class K>
inline void pool_row(const DirectConvShape& s, const float* v, float* work, int64_t width, float bias, float* out) {
  const int64_t cw = s.conv_w(), ow = s.out_w();
  if (!s.pool || (s.pool_w == 1 && s.pool_stride_w == 1 && s.pool_pad_left == 0))
    return K::finish_row(v, bias, s.relu, out, ow);
  if (pairwise_pool(s)) {
    K::pair_max(v, work, width);
    if (s.pool_w == 4) K::pair_max(work, work, (width / 2 + 15) / 16 * 16);
    return K::finish_row(work, bias, s.relu, out, ow);
  }
  for (int64_t px = 0; px < ow; ++px) {
    const int64_t x0 = px * s.pool_stride_w - s.pool_pad_left;
    const int64_t b = std::max<int64_t>(0, x0), e = std::min(cw, x0 + s.pool_w);
    if (b >= e) {
      out[px] = std::numeric_limits<float>::lowest();  // an empty window, as the reference pool gives
      continue;
    }
    float best = v[b];
    for (int64_t x = b + 1; x < e; ++x)
      if (v[x] > best || (is_nan(v[x]) && !is_nan(best))) best = v[x];
    out[px] = finish(best, bias, s.relu);
  }
}

/// The build's baseline kernels (AVX2 or plain C++) as one type, for rows_impl.
template <int NVMAX>
struct BaseKernels {
  static ConvRowFn conv_row(int64_t kernel_w) { return conv_row_for<NVMAX>(kernel_w); }
  static void max_of(float* dst, const float* a, const float* b, int64_t n) {
    direct_conv_detail::max_of(dst, a, b, n);
  }
  static void pair_max(const float* src, float* dst, int64_t n) { direct_conv_detail::pair_max(src, dst, n); }
  static void finish_row(const float* v, float bias, bool relu, float* out, int64_t n) {
    direct_conv_detail::finish_row(v, bias, relu, out, n);
  }
};

/// The body of direct_conv_rows, over the kernels K supplies (conv rows, vertical and horizontal max, bias and
/// ReLU): the baseline ones or the AVX-512 ones (direct_conv_avx512.h).
template <class K>
inline void rows_impl(const DirectConvShape& s, const float* packed, const float* bias, const float* x, float* y,
                      float* scratch, int64_t row_begin, int64_t row_end) {
  if (row_begin >= row_end) return;
  const DirectConvLayout l = direct_conv_layout(s);
  const int64_t ch = s.conv_h(), cw8 = l.conv_w8, pw = l.padded_w;
  const int64_t sh = s.pool ? s.pool_stride_h : 1, ph = s.pool ? s.pool_h : 1, pt = s.pool ? s.pool_pad_top : 0;

  // Conv rows [c0, c1) feed the requested output rows; copy their padded input rows [c0, c1 + kh - 1).
  const int64_t c0 = std::max<int64_t>(0, row_begin * sh - pt);
  const int64_t c1 = std::min(ch, (row_end - 1) * sh - pt + ph);
  const int64_t band = c1 - c0 + s.kernel_h - 1;
  // A cache-line-aligned base: the AVX-512 kernels' 64-byte vectors then split no more lines than the layout makes
  // them (32-byte alignment left it to the allocator: one thread's scratch ran conv2 15% slower than another's).
  float* base = scratch + ((64 - reinterpret_cast<uintptr_t>(scratch) % 64) % 64) / sizeof(float);
  float* xp = base;
  float* ring = xp + s.in_channels * band * pw;
  float* vmax = ring + l.ring_rows * l.m4 * cw8;
  const int64_t vmax_w = (cw8 + 15) / 16 * 16;  // the pair-max passes read whole 16-float blocks
  std::fill(vmax + cw8, vmax + vmax_w, 0.0f);
  // Without padding, and with every tile's reads inside the input row, the tiles read the input in place (both
  // layers of the conv net); otherwise from a zero-padded copy of the band.
  const bool in_place =
      s.pad_top == 0 && s.pad_left == 0 && s.pad_bottom == 0 && s.pad_right == 0 && cw8 + s.kernel_w - 1 <= s.in_w;
  const float* in = x + c0 * s.in_w;
  int64_t in_row = s.in_w, in_channel = s.in_h * s.in_w;
  if (!in_place) {
    for (int64_t c = 0; c < s.in_channels; ++c)
      for (int64_t r = 0; r < band; ++r) {
        float* dst = xp + (c * band + r) * pw;
        const int64_t iy = c0 + r - s.pad_top;
        std::memset(dst, 0, static_cast<size_t>(pw) * sizeof(float));
        if (iy >= 0 && iy < s.in_h)
          std::memcpy(dst + s.pad_left, x + (c * s.in_h + iy) * s.in_w, static_cast<size_t>(s.in_w) * sizeof(float));
      }
    in = xp, in_row = pw, in_channel = band * pw;
  }

  const ConvRowFn conv_row_fn = K::conv_row(s.kernel_w);
  const int64_t packed_block = s.in_channels * s.kernel_h * s.kernel_w * kDirectConvBlockM;
  std::vector<int64_t> slot_row(static_cast<size_t>(l.ring_rows), -1);
  auto slot = [&](int64_t cy) { return ring + (cy % l.ring_rows) * l.m4 * cw8; };
  auto ensure_row = [&](int64_t cy) {
    int64_t& held = slot_row[static_cast<size_t>(cy % l.ring_rows)];
    if (held == cy) return;
    TileArgs a{in + (cy - c0) * in_row, in_row, in_channel, s.in_channels, s.kernel_h, packed, slot(cy), cw8};
    conv_row_fn(a, l.m4, cw8, packed_block);
    held = cy;
  };

  const int64_t oh = s.out_h(), ow = s.out_w();
  for (int64_t py = row_begin; py < row_end; ++py) {
    const int64_t y0 = py * sh - pt;
    const int64_t rb = std::max<int64_t>(0, y0), re = std::min(ch, y0 + ph);
    for (int64_t cy = rb; cy < re; ++cy) ensure_row(cy);
    for (int64_t m = 0; m < s.out_channels; ++m) {
      float* out = y + (m * oh + py) * ow;
      if (rb >= re) {
        std::fill(out, out + ow, std::numeric_limits<float>::lowest());
        continue;
      }
      const float* v = slot(rb) + m * cw8;  // one row: pooled straight from the ring
      if (re - rb > 1) {
        K::max_of(vmax, v, slot(rb + 1) + m * cw8, cw8);
        for (int64_t cy = rb + 2; cy < re; ++cy) K::max_of(vmax, vmax, slot(cy) + m * cw8, cw8);
        v = vmax;
      }
      pool_row<K>(s, v, vmax, vmax_w, bias ? bias[m] : 0.0f, out);
    }
  }
}

}  // namespace direct_conv_detail

/// Computes output rows [row_begin, row_end) of one image: x [C, in_h, in_w], y [M, out_h, out_w] (the whole
/// image; only those rows are written), packed weights from direct_conv_pack, bias [M] or nullptr, and `scratch`
/// of direct_conv_layout(s).scratch_floats floats (any alignment) owned by the calling thread.
/// NVMAX (1..3) is the widest register tile in vectors of 8 columns; 2 is the fastest measured (see the lab: with
/// 3, 16 ymm registers are too few for GCC, which reloads input vectors as FMA memory operands).
template <int NVMAX = 2>
void direct_conv_rows(const DirectConvShape& s, const float* packed, const float* bias, const float* x, float* y,
                      float* scratch, int64_t row_begin, int64_t row_end) {
  static_assert(NVMAX >= 1 && NVMAX <= 3, "NVMAX is 1..3 (16 ymm registers)");
  direct_conv_detail::rows_impl<direct_conv_detail::BaseKernels<NVMAX>>(s, packed, bias, x, y, scratch, row_begin,
                                                                        row_end);
}

}  // namespace ie::cpu
