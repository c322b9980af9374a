// ie.FusedConv's attributes: Conv's plus the activation and the optional max pool, shared by CPU and CUDA kernels.
#pragma once

#include "engine/registry/op_def.h"
#include "layers/common/conv_core.h"

namespace ie {

/// Whether ie.FusedConv's X of type `x` with W of type `w` is a float32 input whose Cast to W's 16-bit type the
/// planner folded into the node (rule conv_input_cast).
inline bool folded_input_cast(DType x, DType w) {
  return x == DType::Float32 && (w == DType::Float16 || w == DType::BFloat16);
}

inline ConvSetup resolve_fused_conv(const Node& node, const TensorInfo& x, const TensorInfo& w, const TensorInfo* b) {
  ConvSetup s = resolve_conv(node.attrs, x.shape, w.shape, b ? &b->shape : nullptr, node.label());
  s.activation = parse_activation(node.attrs.get_string("activation", ""), node.label());
  const std::string pool = node.attrs.get_string("pool", "");
  if (pool == "MaxPool") {
    s.pool = true;
    s.pool_window = resolve_window(node.attrs, "pool_", s.conv.out_shape(), {}, true, node.label());
  } else if (!pool.empty()) {
    fail_input(node.label(), ": pool '", pool, "' is not supported (expected \"\" or MaxPool)");
  }
  return s;
}

}  // namespace ie
