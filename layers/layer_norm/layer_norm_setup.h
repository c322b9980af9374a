// LayerNormalization's geometry and attributes, shared by the CPU and CUDA kernels.
#pragma once

#include "engine/registry/op_def.h"
#include "layers/common/activation.h"

namespace ie {

struct LayerNormSetup {
  int64_t rows = 0, n = 0;  // rows of n normalized elements each
  float epsilon = 1e-5f;
  Activation activation = Activation::None;  // ie.LayerNorm's fused activation
  Shape normalized, scale_shape, bias_shape;
};

/// Reads axis, epsilon and activation (ie.LayerNorm) for input shape `x`; `axis_out` (optional) receives the
/// normalized axis. Fails naming the node on rank 0 or an axis out of range.
LayerNormSetup resolve_layer_norm(const Node& node, const Shape& x, int64_t* axis_out);

}  // namespace ie
