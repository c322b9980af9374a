// The axes a Reduce* node folds (attribute or input by opset, noop_with_empty_axes, keepdims), shared by the CPU
// and CUDA kernels.
#pragma once

#include <vector>

#include "engine/registry/op_def.h"

namespace ie {

struct ReduceAxes {
  bool noop = false;          // empty axes with noop_with_empty_axes: the output is the input
  std::vector<int64_t> axes;  // normalized, sorted
  Shape out;
};

/// Resolves the axes of a Reduce* node over input 0; fails naming the node on bad axes.
ReduceAxes plan_axes(const InferContext& ctx);

}  // namespace ie
