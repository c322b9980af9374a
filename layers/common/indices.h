// Index tensors of Gather-like ops: int32 or int64, negative values count from the back.
#pragma once

#include <vector>

#include "engine/registry/op_def.h"

namespace ie {

/// Reads `t` (int32 or int64) as int64 with negative values wrapped into [0, dim). Throws Error(BadInput) naming
/// `where` for a value outside [-dim, dim). Call it before any parallel loop: exceptions must not leave one.
std::vector<int64_t> checked_indices(const TensorRef& t, int64_t dim, const std::string& where);

/// Shape-inference check that input `i` is an int32 or int64 index tensor.
void expect_index_input(const InferContext& ctx, size_t i);

}  // namespace ie
