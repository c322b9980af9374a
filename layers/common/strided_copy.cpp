#include "layers/common/strided_copy.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/parallel.h"

namespace ie {

namespace {

constexpr int64_t kTile = 32;

// [.., A, B] where A is contiguous in src and B contiguous in dst: copy in tiles so both sides stay in cache.
template <class U>
void copy_tiled(const StridedBox& d, U* dst, const U* src) {
  size_t r = d.shape.size();
  int64_t rows = d.shape[r - 2], cols = d.shape[r - 1];
  int64_t dst_row = d.dst[r - 2], src_col = d.src[r - 1];
  int64_t outer = numel_range(d.shape, 0, r - 2);
  int64_t row_tiles = (rows + kTile - 1) / kTile;
  parallel_for(outer * row_tiles, std::max<int64_t>(1, 4096 / (kTile * std::max<int64_t>(cols, 1))),
               [&](int64_t begin, int64_t end) {
                 for (int64_t t = begin; t < end; ++t) {
                   int64_t o = t / row_tiles, r0 = (t % row_tiles) * kTile;
                   int64_t doff = 0, soff = 0, rem = o;
                   for (int k = static_cast<int>(r) - 3; k >= 0; --k) {
                     int64_t i = rem % d.shape[k];
                     rem /= d.shape[k];
                     doff += i * d.dst[k];
                     soff += i * d.src[k];
                   }
                   int64_t r1 = std::min(rows, r0 + kTile);
                   for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
                     int64_t c1 = std::min(cols, c0 + kTile);
                     for (int64_t a = r0; a < r1; ++a) {
                       U* out = dst + doff + a * dst_row;
                       const U* in = src + soff + a;
                       for (int64_t c = c0; c < c1; ++c) out[c] = in[c * src_col];
                     }
                   }
                 }
               });
}

template <class U>
void copy_rows(const StridedBox& d, U* dst, const U* src) {
  size_t r = d.shape.size();
  int64_t n = d.shape[r - 1], ds = d.dst[r - 1], ss = d.src[r - 1];
  int64_t outer = numel_range(d.shape, 0, r - 1);
  parallel_for(outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)), [&](int64_t begin, int64_t end) {
    // Odometer over the outer dims, started at `begin`.
    std::vector<int64_t> idx(r - 1, 0);
    int64_t doff = 0, soff = 0, rem = begin;
    for (int k = static_cast<int>(r) - 2; k >= 0; --k) {
      idx[k] = rem % d.shape[k];
      rem /= d.shape[k];
      doff += idx[k] * d.dst[k];
      soff += idx[k] * d.src[k];
    }
    for (int64_t o = begin; o < end; ++o) {
      U* out = dst + doff;
      const U* in = src + soff;
      if (ds == 1 && ss == 1) {
        std::memcpy(out, in, static_cast<size_t>(n) * sizeof(U));
      } else if (ss == 0 && ds == 1) {
        std::fill_n(out, n, *in);
      } else {
        for (int64_t i = 0; i < n; ++i) out[i * ds] = in[i * ss];
      }
      for (int k = static_cast<int>(r) - 2; k >= 0; --k) {
        doff += d.dst[k];
        soff += d.src[k];
        if (++idx[k] < d.shape[k]) break;
        doff -= d.dst[k] * d.shape[k];
        soff -= d.src[k] * d.shape[k];
        idx[k] = 0;
      }
    }
  });
}

template <class U>
void copy_typed(StridedBox d, U* dst, const U* src) {
  size_t r = d.shape.size();
  if (r == 0) {
    *dst = *src;
    return;
  }
  // A transpose-like copy: the source is contiguous along some other dim than the destination's last one.
  if (r >= 2 && d.dst[r - 1] == 1 && std::abs(d.src[r - 1]) > 1 && d.shape[r - 1] >= 8) {
    for (size_t k = 0; k + 1 < r; ++k) {
      if (d.src[k] != 1 || d.shape[k] < 8) continue;
      std::swap(d.shape[k], d.shape[r - 2]);
      std::swap(d.dst[k], d.dst[r - 2]);
      std::swap(d.src[k], d.src[r - 2]);
      copy_tiled(d, dst, src);
      return;
    }
  }
  copy_rows(d, dst, src);
}

}  // namespace

StridedBox simplify_box(const Shape& shape, const std::vector<int64_t>& dst, const std::vector<int64_t>& src) {
  StridedBox d;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!d.shape.empty() && d.dst.back() == dst[i] * shape[i] && d.src.back() == src[i] * shape[i]) {
      d.shape.back() *= shape[i];
      d.dst.back() = dst[i];
      d.src.back() = src[i];
      continue;
    }
    d.shape.push_back(shape[i]);
    d.dst.push_back(dst[i]);
    d.src.push_back(src[i]);
  }
  return d;
}

void strided_copy(size_t elem_size, const Shape& shape, void* dst, const std::vector<int64_t>& dst_strides,
                  const void* src, const std::vector<int64_t>& src_strides) {
  for (int64_t s : shape)
    if (s == 0) return;
  StridedBox d = simplify_box(shape, dst_strides, src_strides);
  switch (elem_size) {
    case 1:
      return copy_typed(d, static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src));
    case 2:
      return copy_typed(d, static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src));
    case 4:
      return copy_typed(d, static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src));
    case 8:
      return copy_typed(d, static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src));
    default:
      fail(ErrorKind::Usage, "strided_copy: unsupported element size ", elem_size);
  }
}

void permute_copy(size_t elem_size, const Shape& in_shape, const std::vector<int64_t>& perm, const void* src,
                  void* dst) {
  std::vector<int64_t> in_strides = strides_of(in_shape);
  Shape out_shape(perm.size());
  std::vector<int64_t> src_strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    out_shape[i] = in_shape[perm[i]];
    src_strides[i] = in_strides[perm[i]];
  }
  strided_copy(elem_size, out_shape, dst, strides_of(out_shape), src, src_strides);
}

std::vector<int64_t> broadcast_strides(const Shape& in_shape, const Shape& out_shape) {
  std::vector<int64_t> in_strides = strides_of(in_shape), out(out_shape.size(), 0);
  const size_t lead = out_shape.size() - in_shape.size();
  for (size_t i = 0; i < in_shape.size(); ++i) out[lead + i] = in_shape[i] == 1 ? 0 : in_strides[i];
  return out;
}

}  // namespace ie
