// im2col over 1 to 3 spatial dims: unfolds one image [channels, in...] into [channels * kernel_volume, out_volume]
// so that a convolution becomes one matrix product. Padding reads as zero.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "layers/common/window.h"

namespace ie {

template <class T>
void im2col(const T* img, int64_t channels, const Window& w, T* col) {
  const int64_t in_vol = w.in_volume();
  const int64_t o0 = w.out[0], o1 = w.out[1], o2 = w.out[2];
  T* dst = col;
  for (int64_t c = 0; c < channels; ++c) {
    const T* src = img + c * in_vol;
    for (int64_t k0 = 0; k0 < w.kernel[0]; ++k0)
      for (int64_t k1 = 0; k1 < w.kernel[1]; ++k1)
        for (int64_t k2 = 0; k2 < w.kernel[2]; ++k2) {
          // Output columns whose input column is inside the image: lo <= x < hi.
          const int64_t shift2 = k2 * w.dilation[2] - w.pad_begin[2];
          int64_t lo = shift2 >= 0 ? 0 : (-shift2 + w.stride[2] - 1) / w.stride[2];
          int64_t hi = w.in[2] - shift2 <= 0 ? 0 : (w.in[2] - shift2 + w.stride[2] - 1) / w.stride[2];
          lo = std::min(lo, o2);
          hi = std::max(lo, std::min(hi, o2));
          for (int64_t y0 = 0; y0 < o0; ++y0) {
            const int64_t i0 = y0 * w.stride[0] + k0 * w.dilation[0] - w.pad_begin[0];
            for (int64_t y1 = 0; y1 < o1; ++y1, dst += o2) {
              const int64_t i1 = y1 * w.stride[1] + k1 * w.dilation[1] - w.pad_begin[1];
              if (i0 < 0 || i0 >= w.in[0] || i1 < 0 || i1 >= w.in[1]) {
                std::fill(dst, dst + o2, T(0));
                continue;
              }
              const T* row = src + (i0 * w.in[1] + i1) * w.in[2] + shift2;
              std::fill(dst, dst + lo, T(0));
              if (w.stride[2] == 1) {
                if (hi > lo) std::memcpy(dst + lo, row + lo, sizeof(T) * (hi - lo));
              } else {
                for (int64_t x = lo; x < hi; ++x) dst[x] = row[x * w.stride[2]];
              }
              std::fill(dst + hi, dst + o2, T(0));
            }
          }
        }
  }
}

}  // namespace ie
