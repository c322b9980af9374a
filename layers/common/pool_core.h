// Max and average pooling of one image [channels, in...] -> [channels, out...] over 1 to 3 spatial dims.
// Shared by MaxPool, AveragePool and the pooling stage of FusedConv.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "engine/core/dtype_dispatch.h"
#include "layers/common/nan.h"
#include "layers/common/window.h"

namespace ie {

/// The taps k in [0, kernel) whose position begin + k * dilation lies in [0, extent), as [*lo, *hi). Computed, not
/// searched: a model's kernel may be far larger than the input, and walking every tap would never finish.
inline void tap_range(int64_t begin, int64_t dilation, int64_t kernel, int64_t extent, int64_t* lo, int64_t* hi) {
  *lo = begin >= 0 ? 0 : (-begin + dilation - 1) / dilation;
  *hi = begin >= extent ? 0 : std::min(kernel, (extent - 1 - begin) / dilation + 1);
  if (*hi < *lo) *hi = *lo;
}

/// Walks the in-image taps of the window of output position (y0, y1, y2), calling fn(flat input offset, i0, i1, i2).
template <class Fn>
inline void for_each_tap(const Window& w, int64_t y0, int64_t y1, int64_t y2, Fn&& fn) {
  const int64_t b0 = y0 * w.stride[0] - w.pad_begin[0];
  const int64_t b1 = y1 * w.stride[1] - w.pad_begin[1];
  const int64_t b2 = y2 * w.stride[2] - w.pad_begin[2];
  int64_t lo0, hi0, lo1, hi1, lo2, hi2;
  tap_range(b0, w.dilation[0], w.kernel[0], w.in[0], &lo0, &hi0);
  tap_range(b1, w.dilation[1], w.kernel[1], w.in[1], &lo1, &hi1);
  tap_range(b2, w.dilation[2], w.kernel[2], w.in[2], &lo2, &hi2);
  for (int64_t k0 = lo0; k0 < hi0; ++k0) {
    const int64_t i0 = b0 + k0 * w.dilation[0];
    for (int64_t k1 = lo1; k1 < hi1; ++k1) {
      const int64_t i1 = b1 + k1 * w.dilation[1];
      const int64_t row = (i0 * w.in[1] + i1) * w.in[2];
      for (int64_t k2 = lo2; k2 < hi2; ++k2) {
        const int64_t i2 = b2 + k2 * w.dilation[2];
        fn(row + i2, i0, i1, i2);
      }
    }
  }
}

/// Max pooling. When `indices` is given it receives ONNX MaxPool's Indices: `index_base` (the image's offset in the
/// whole input) plus the flat spatial index, row-major, or column-major when col_major.
template <class T>
void max_pool(const T* in, int64_t channels, const Window& w, T* out, int64_t* indices = nullptr,
              int64_t index_base = 0, bool col_major = false) {
  const int64_t in_vol = w.in_volume(), out_vol = w.out_volume();
  for (int64_t c = 0; c < channels; ++c) {
    const T* src = in + c * in_vol;
    T* dst = out + c * out_vol;
    for (int64_t y0 = 0; y0 < w.out[0]; ++y0)
      for (int64_t y1 = 0; y1 < w.out[1]; ++y1)
        for (int64_t y2 = 0; y2 < w.out[2]; ++y2, ++dst) {
          T best = std::numeric_limits<T>::lowest();
          int64_t arg = -1, a0 = 0, a1 = 0, a2 = 0;
          for_each_tap(w, y0, y1, y2, [&](int64_t off, int64_t i0, int64_t i1, int64_t i2) {
            // NaN wins, as in numpy's max and PyTorch's max_pool: a NaN input must not vanish from the output.
            if (arg < 0 || src[off] > best || (is_nan(src[off]) && !is_nan(best))) {
              best = src[off];
              arg = off, a0 = i0, a1 = i1, a2 = i2;
            }
          });
          *dst = best;
          if (indices) {
            int64_t flat = col_major ? a0 + w.in[0] * (a1 + w.in[1] * a2) : arg;
            *indices++ = index_base + c * in_vol + flat;
          }
        }
  }
}

/// Average pooling; count_include_pad counts the padded positions of the window (not those past the end padding).
template <class T>
void average_pool(const T* in, int64_t channels, const Window& w, T* out, bool count_include_pad) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t in_vol = w.in_volume(), out_vol = w.out_volume();
  for (int64_t c = 0; c < channels; ++c) {
    const T* src = in + c * in_vol;
    T* dst = out + c * out_vol;
    for (int64_t y0 = 0; y0 < w.out[0]; ++y0)
      for (int64_t y1 = 0; y1 < w.out[1]; ++y1)
        for (int64_t y2 = 0; y2 < w.out[2]; ++y2, ++dst) {
          Acc sum = 0;
          int64_t count = 0;
          for_each_tap(w, y0, y1, y2, [&](int64_t off, int64_t, int64_t, int64_t) {
            sum += static_cast<Acc>(src[off]);
            ++count;
          });
          if (count_include_pad) {
            count = 1;
            const int64_t ys[kMaxSpatial] = {y0, y1, y2};
            for (int d = 0; d < kMaxSpatial; ++d) {
              int64_t lo, hi;  // taps inside the padded input, counted in padded coordinates
              tap_range(ys[d] * w.stride[d], w.dilation[d], w.kernel[d], w.in[d] + w.pad_begin[d] + w.pad_end[d], &lo,
                        &hi);
              count *= hi - lo;
            }
          }
          *dst = static_cast<T>(count > 0 ? sum / static_cast<Acc>(count) : Acc(0));
        }
  }
}

}  // namespace ie
