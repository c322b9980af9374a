// The user's limits (Options::limits) applied to a plan: checked after shape inference, before any kernel is made
// or any byte is allocated, so that a hostile model fails in microseconds with an error naming the node.
#pragma once

#include <map>
#include <string>

#include "engine/core/limits.h"
#include "engine/ir/graph.h"
#include "engine/registry/op_def.h"

namespace ie {

/// Fails with Error(BadInput) naming the node, the tensor and the limit when a graph input or a node's output is
/// larger than limits.max_tensor_bytes, or a node's cost is more than limits.max_op_flops.
void check_node_limits(const Graph& g, const std::map<std::string, TensorInfo>& infos, const Limits& limits);

/// Fails naming the limit and the largest tensor when the arena is larger than limits.max_arena_bytes.
void check_arena_limit(size_t arena_bytes, const std::string& largest, size_t largest_bytes, const Limits& limits);

}  // namespace ie
