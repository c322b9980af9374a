// Axis lists as ONNX ops take them (Squeeze, Unsqueeze, Reduce*, Slice): negative values count from the back.
#pragma once

#include <string>
#include <vector>

#include "engine/core/shape.h"
#include "engine/ir/graph.h"

namespace ie {

/// Maps every axis into [0, rank) and sorts them; throws Error(BadInput) naming `what` on an out-of-range or
/// repeated axis.
///   normalize_axes({-1, 0}, 3, "node 'r' (ReduceSum)")  ->  {0, 2}
std::vector<int64_t> normalize_axes(const std::vector<int64_t>& axes, int64_t rank, const std::string& what);

/// The node's single-axis attribute (`name`, default `fallback`) mapped into [0, rank); throws naming the node.
///   int64_t axis = axis_attr(node, input_rank);   // Gather, ArgMax, GatherElements ...
int64_t axis_attr(const Node& node, size_t rank, int64_t fallback = 0, const char* name = "axis");

}  // namespace ie
