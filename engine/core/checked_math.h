// Checked integer arithmetic for every size and index computed from a model: a hostile file may ask for dims whose
// products or sums do not fit in 64 bits, and wrapping silently would plan too small an allocation.
//
//   int64_t out = checked_mul(in_dim, repeats, node.label() + ": Tile output dim");
//   size_t bytes = checked_bytes(shape, dtype, "tensor 'x'");
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/dtype.h"

namespace ie {

/// a * b; throws Error(BadInput) "<what>: <a> * <b> overflows 64 bits" when it does not fit in int64.
int64_t checked_mul(int64_t a, int64_t b, const std::string& what);
/// a + b; throws Error(BadInput) "<what>: <a> + <b> overflows 64 bits" when it does not fit in int64.
int64_t checked_add(int64_t a, int64_t b, const std::string& what);
/// Bytes of a tensor: element count times the element size; throws naming `what` on a negative dim or overflow.
size_t checked_bytes(const std::vector<int64_t>& shape, DType dtype, const std::string& what);

}  // namespace ie
