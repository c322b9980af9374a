// Attribute and input parsing of Concat and Split, shared by the CPU and CUDA kernels.
#pragma once

#include <vector>

#include "engine/registry/op_def.h"

namespace ie {

/// Concat's axis mapped into [0, rank); `axis` is required from opset 4.
int64_t concat_axis(const Node& node, int64_t opset, int64_t rank);

struct SplitPlan {
  int64_t axis = 0;
  std::vector<int64_t> sizes;  // one per output
};

/// Split's axis and piece sizes (attribute, input or equal parts by opset); fails naming the node when they do
/// not add up to the axis.
SplitPlan plan_split(const InferContext& ctx);

}  // namespace ie
