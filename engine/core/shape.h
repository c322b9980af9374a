// Shape arithmetic shared by shape inference and kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/tensor.h"

namespace ie {

using Shape = std::vector<int64_t>;

/// Element count; throws Error(BadInput) naming `what` on a negative dim or when the product overflows int64.
int64_t checked_numel(const Shape& shape, const std::string& what = "tensor");
/// Product of dims [begin, end).
int64_t numel_range(const Shape& shape, size_t begin, size_t end);
/// C-order strides in elements.
std::vector<int64_t> strides_of(const Shape& shape);
/// Numpy-style broadcast of two shapes; throws naming `what` when they do not broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what);
/// Maps a possibly negative axis into [0, rank); throws naming `what` when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what);

}  // namespace ie
