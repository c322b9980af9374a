// Slice's starts/ends/axes/steps resolved against the input shape, shared by the CPU and CUDA kernels.
#pragma once

#include <vector>

#include "engine/registry/op_def.h"

namespace ie {

struct SlicePlan {
  Shape out;
  std::vector<int64_t> start, step;  // per input dim
};

/// Clamps starts and ends as the ONNX spec says; fails naming the node on bad lengths, repeats or a zero step.
SlicePlan plan_slice(const InferContext& ctx);

}  // namespace ie
