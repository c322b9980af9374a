// AVX-512 kernels of the CPU direct convolution (direct_conv.h), compiled beside the build's AVX2 baseline with
// function target attributes and chosen at run time (engine/core/cpu_isa.h): the same shapes, layout, scratch and
// results as the AVX2 path, bit for bit (every output column sums the same products in the same order with FMAs;
// max, bias and ReLU are exact), so either path may serve any call.
//
// What changes with 32 registers of 16 floats:
// - Register tile: MB blocks of 4 output channels x NV vectors of 16 columns (MB 1: NV up to 6, 24 accumulators;
//   MB 2 when a tile is at most 3 vectors wide and 8 channels remain: conv2 of the conv net, 2 vectors x 16
//   channels, runs as 8 channels x 2 vectors, 16 accumulators, instead of 4 x 2). A row of an odd number of
//   8-column vectors ends in a half vector: masked loads and stores on the tile's last vector (the layout stays
//   whole 8-column vectors, so scratch and ring are those of direct_conv_layout).
// - Each weight is an embedded broadcast operand of the FMA ({1to16}); the input vectors are loaded once per tap.
// - Vertical max, horizontal pair max (one two-source permute per 16 results instead of shuffles and a lane fix)
//   and bias/ReLU run 16 wide, with the baseline code for a last 8 or 16 floats.
// Compiled only for x86-64 with GCC or Clang; IE_DIRECT_CONV_AVX512 says whether it is there.
#pragma once

#include "layers/common/cpu/direct_conv.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define IE_DIRECT_CONV_AVX512 1
#define IE_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

// GCC 12's 512-bit max and extract intrinsics pass _mm512_undefined_ps() (a self-initialized variable) as the
// unused merge source, which -Wuninitialized reports wherever they are inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ie::cpu {

namespace direct_conv_avx512 {

using direct_conv_detail::TileArgs;
using TileFn = void (*)(const TileArgs&, int64_t);

constexpr int64_t kVec = 16;
constexpr __mmask16 kHalf = 0x00FF;

// Accumulates one 4-channel block's taps of one input-row position into acc[4][NV] from the NV input vectors `v`.
template <int NV>
IE_TARGET_AVX512 inline void fma_block(const __m512* v, const float* wk, __m512* a0, __m512* a1, __m512* a2,
                                       __m512* a3) {
  __m512 wb = _mm512_set1_ps(wk[0]);
  for (int j = 0; j < NV; ++j) a0[j] = _mm512_fmadd_ps(v[j], wb, a0[j]);
  wb = _mm512_set1_ps(wk[1]);
  for (int j = 0; j < NV; ++j) a1[j] = _mm512_fmadd_ps(v[j], wb, a1[j]);
  wb = _mm512_set1_ps(wk[2]);
  for (int j = 0; j < NV; ++j) a2[j] = _mm512_fmadd_ps(v[j], wb, a2[j]);
  wb = _mm512_set1_ps(wk[3]);
  for (int j = 0; j < NV; ++j) a3[j] = _mm512_fmadd_ps(v[j], wb, a3[j]);
}

template <bool TAIL, int NV>
IE_TARGET_AVX512 inline void store_row(float* out, const __m512* acc) {
  for (int j = 0; j < NV; ++j) {
    if (TAIL && j == NV - 1)
      _mm512_mask_storeu_ps(out + j * kVec, kHalf, acc[j]);
    else
      _mm512_storeu_ps(out + j * kVec, acc[j]);
  }
}

// MB blocks of 4 output channels x NV vectors of 16 columns (the last one of 8 when TAIL), accumulated over every
// input channel and tap, then stored; `block` is the floats between the packed weights of consecutive blocks.
// Same loop shape as the AVX2 tile (one-dimensional accumulator arrays, a flat do-while over the tap rows), which
// keeps GCC's accumulators in registers.
template <int KW, int NV, int MB, bool TAIL>
IE_TARGET_AVX512 void conv_tile(const TileArgs& a, int64_t block) {
  static_assert(MB == 1 || MB == 2, "1 or 2 blocks of 4 channels");
  static_assert(NV * 4 * MB + NV + 1 <= 32, "accumulators, input vectors and a weight fit the 32 zmm registers");
  __m512 acc0[NV], acc1[NV], acc2[NV], acc3[NV], acc4[NV], acc5[NV], acc6[NV], acc7[NV];
  for (int j = 0; j < NV; ++j) {
    acc0[j] = _mm512_setzero_ps(), acc1[j] = acc0[j], acc2[j] = acc0[j], acc3[j] = acc0[j];
    if constexpr (MB == 2) acc4[j] = acc0[j], acc5[j] = acc0[j], acc6[j] = acc0[j], acc7[j] = acc0[j];
  }
  const float* w = a.w;
  const float* row = a.in;
  const int64_t rows = a.channels * a.kernel_h, next_channel = a.in_channel - a.kernel_h * a.in_row;
  int64_t r = 0, ky = 0;
  do {
    for (int kx = 0; kx < KW; ++kx) {
      __m512 v[NV];
      for (int j = 0; j < NV; ++j)
        v[j] = TAIL && j == NV - 1 ? _mm512_maskz_loadu_ps(kHalf, row + kx + j * kVec)
                                   : _mm512_loadu_ps(row + kx + j * kVec);
      const float* wk = w + kx * kDirectConvBlockM;
      fma_block<NV>(v, wk, acc0, acc1, acc2, acc3);
      if constexpr (MB == 2) fma_block<NV>(v, wk + block, acc4, acc5, acc6, acc7);
    }
    row += a.in_row;
    w += KW * kDirectConvBlockM;
    if (++ky == a.kernel_h) ky = 0, row += next_channel;
  } while (++r < rows);
  const int64_t oc = a.out_channel;
  store_row<TAIL, NV>(a.out, acc0);
  store_row<TAIL, NV>(a.out + oc, acc1);
  store_row<TAIL, NV>(a.out + 2 * oc, acc2);
  store_row<TAIL, NV>(a.out + 3 * oc, acc3);
  if constexpr (MB == 2) {
    store_row<TAIL, NV>(a.out + 4 * oc, acc4);
    store_row<TAIL, NV>(a.out + 5 * oc, acc5);
    store_row<TAIL, NV>(a.out + 6 * oc, acc6);
    store_row<TAIL, NV>(a.out + 7 * oc, acc7);
  }
}

// The tile of n vectors (1 <= n <= NV).
template <int KW, int NV, int MB>
TileFn pick_tile(int64_t n, bool tail) {
  if constexpr (NV > 1)
    if (n < NV) return pick_tile<KW, NV - 1, MB>(n, tail);
  return tail ? conv_tile<KW, NV, MB, true> : conv_tile<KW, NV, MB, false>;
}

constexpr int kMaxNvTwoBlocks = 3;  // 8 channels x 3 vectors: 24 accumulators

/// One conv row (all channel blocks, all column tiles) into a ring slot [m4][conv_w8], as the AVX2 conv_row: the
/// row's 16-column vectors (the last maybe 8) split into near-equal tiles of at most NVMAX vectors.
template <int KW, int NVMAX>
IE_TARGET_AVX512 void conv_row(TileArgs a, int64_t m4, int64_t conv_w8, int64_t packed_block) {
  const int64_t n8 = conv_w8 / kDirectConvVec, nvec = (n8 + 1) / 2;
  const bool half_last = n8 % 2 != 0;
  const int64_t tiles = (nvec + NVMAX - 1) / NVMAX, small = nvec / tiles, big_tiles = nvec % tiles;
  const float* in0 = a.in;
  float* out0 = a.out;
  const bool two_blocks = small + (big_tiles ? 1 : 0) <= kMaxNvTwoBlocks;
  for (int64_t mb = 0; mb < m4;) {
    const int blocks = two_blocks && mb + 2 * kDirectConvBlockM <= m4 ? 2 : 1;
    int64_t j = 0;
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t n = small + (t < big_tiles ? 1 : 0);
      const bool tail = half_last && t == tiles - 1;
      a.in = in0 + j * kVec;
      a.out = out0 + mb * a.out_channel + j * kVec;
      const TileFn tile = blocks == 2 ? pick_tile<KW, (NVMAX < kMaxNvTwoBlocks ? NVMAX : kMaxNvTwoBlocks), 2>(n, tail)
                                      : pick_tile<KW, NVMAX, 1>(n, tail);
      tile(a, packed_block);
      j += n;
    }
    a.w += blocks * packed_block;
    mb += blocks * kDirectConvBlockM;
  }
}

/// The kernels of direct_conv_detail::rows_impl, 16 floats wide.
template <int NVMAX>
struct Kernels {
  static direct_conv_detail::ConvRowFn conv_row(int64_t kernel_w) {
    switch (kernel_w) {
      case 3:
        return direct_conv_avx512::conv_row<3, NVMAX>;
      case 4:
        return direct_conv_avx512::conv_row<4, NVMAX>;
      case 5:
        return direct_conv_avx512::conv_row<5, NVMAX>;
      case 6:
        return direct_conv_avx512::conv_row<6, NVMAX>;
      default:
        return direct_conv_avx512::conv_row<7, NVMAX>;
    }
  }

  /// dst = max(a, b), a NaN in either winning (n a multiple of 8).
  IE_TARGET_AVX512 static void max_of(float* dst, const float* a, const float* b, int64_t n) {
    int64_t i = 0;
    for (; i + kVec <= n; i += kVec) {
      const __m512 va = _mm512_loadu_ps(a + i), vb = _mm512_loadu_ps(b + i);
      const __m512 m = _mm512_max_ps(va, vb);  // vb when either is NaN
      _mm512_storeu_ps(dst + i, _mm512_mask_blend_ps(_mm512_cmp_ps_mask(va, va, _CMP_UNORD_Q), m, va));
    }
    if (i < n) direct_conv_detail::max_of(dst + i, a + i, b + i, n - i);
  }

  /// dst[i] = max(src[2i], src[2i+1]) for i < n/2, a NaN winning (n a multiple of 16; dst may be src).
  IE_TARGET_AVX512 static void pair_max(const float* src, float* dst, int64_t n) {
    const __m512i even_idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd_idx = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    int64_t i = 0;
    for (; i + 2 * kVec <= n; i += 2 * kVec) {
      const __m512 a = _mm512_loadu_ps(src + i), b = _mm512_loadu_ps(src + i + kVec);
      const __m512 even = _mm512_permutex2var_ps(a, even_idx, b), odd = _mm512_permutex2var_ps(a, odd_idx, b);
      const __m512 m = _mm512_max_ps(even, odd);  // odd when either is NaN
      _mm512_storeu_ps(dst + i / 2, _mm512_mask_blend_ps(_mm512_cmp_ps_mask(even, even, _CMP_UNORD_Q), m, even));
    }
    if (i < n) direct_conv_detail::pair_max(src + i, dst + i / 2, n - i);
  }

  /// out[i] = v[i] + bias, then ReLU (NaN kept), for i < n.
  IE_TARGET_AVX512 static void finish_row(const float* v, float bias, bool relu, float* out, int64_t n) {
    const __m512 b = _mm512_set1_ps(bias), zero = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + kVec <= n; i += kVec) {
      __m512 t = _mm512_add_ps(_mm512_loadu_ps(v + i), b);
      if (relu) t = _mm512_max_ps(zero, t);  // the second operand when NaN: keeps NaN
      _mm512_storeu_ps(out + i, t);
    }
    if (i < n) direct_conv_detail::finish_row(v + i, bias, relu, out + i, n - i);
  }
};

}  // namespace direct_conv_avx512

/// direct_conv_rows with the AVX-512 kernels: same arguments, scratch and results. Call it only where the
/// processor has AVX-512 F/BW/VL/DQ (engine/core/cpu_isa.h). NVMAX (1..6) is the widest tile in vectors of 16
/// columns.
template <int NVMAX = 5>
IE_TARGET_AVX512 void direct_conv_rows_avx512(const DirectConvShape& s, const float* packed, const float* bias,
                                              const float* x, float* y, float* scratch, int64_t row_begin,
                                              int64_t row_end) {
  static_assert(NVMAX >= 1 && NVMAX <= 6, "NVMAX is 1..6 (32 zmm registers)");
  direct_conv_detail::rows_impl<direct_conv_avx512::Kernels<NVMAX>>(s, packed, bias, x, y, scratch, row_begin, row_end);
}

}  // namespace ie::cpu

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif
