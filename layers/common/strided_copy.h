// N-d copies between strided views of memory: the one data-movement loop behind Transpose, Slice, Expand, Tile,
// Concat, Split and Gather. Strides are in elements and may be 0 (broadcast) or negative (reversed slices).
#pragma once

#include <cstddef>
#include <vector>

#include "engine/core/shape.h"

namespace ie {

/// A copy box after simplify_box: size-1 dims dropped, neighbours contiguous in both views merged.
struct StridedBox {
  Shape shape;
  std::vector<int64_t> dst, src;
};

/// Drops size-1 dims and merges neighbours that are contiguous in both views, so most copies become a few long
/// rows (a rank-0 result means a single element).
StridedBox simplify_box(const Shape& shape, const std::vector<int64_t>& dst, const std::vector<int64_t>& src);

/// Copies the `shape`-sized box: dst[sum i_k * dst_strides[k]] = src[sum i_k * src_strides[k]].
/// Works for any element size of 1, 2, 4 or 8 bytes; the regions must not overlap.
///   strided_copy(4, {2, 3}, out, {3, 1}, in, {1, 2});   // transposes a [3,2] float matrix into [2,3]
void strided_copy(size_t elem_size, const Shape& shape, void* dst, const std::vector<int64_t>& dst_strides,
                  const void* src, const std::vector<int64_t>& src_strides);

/// Writes the contiguous tensor `src` of `in_shape` permuted: out.shape[i] = in_shape[perm[i]].
void permute_copy(size_t elem_size, const Shape& in_shape, const std::vector<int64_t>& perm, const void* src,
                  void* dst);

/// Strides (in elements) for reading a contiguous tensor of `in_shape` as if broadcast to `out_shape` (numpy rules,
/// dims aligned from the back): 0 wherever a dim of size 1 is stretched or missing.
std::vector<int64_t> broadcast_strides(const Shape& in_shape, const Shape& out_shape);

}  // namespace ie
