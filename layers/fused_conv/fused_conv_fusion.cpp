// The pattern ie.FusedConv replaces: Conv -> Relu (-> MaxPool). The activation and the pooling run in the conv's
// epilogue, so the full-resolution activation map never goes through memory. A backend that cannot pool in the
// epilogue gets Conv + Relu (the pattern's shorter form).
#include "engine/planner/fusion_pattern.h"

namespace ie {
namespace {

bool image_input(const PatternMatch& m, const Node& conv) {
  const TensorInfo* x = m.ctx().info(conv.inputs[0]);
  return x && x->shape.size() == 4;
}

// The pool attributes ie.FusedConv reads (resolve_fused_conv): explicit pads, row-major indices.
bool plain_max_pool(const PatternMatch&, const Node& pool) {
  return pool.attrs.get_string("auto_pad", "NOTSET") == "NOTSET" && pool.attrs.get_int("storage_order", 0) == 0;
}

const Pattern kConvReluPool = {
    PatternStep("Conv").constant_input(1).constant_input(2).when(image_input),
    "Relu",
    PatternStep("MaxPool?").when(plain_max_pool),
};

Node fused_conv(FusionContext&, const PatternMatch& m) {
  const Node& conv = m.root();
  Node fused;
  fused.name = conv.name + "/fused";
  fused.domain = "ie";
  fused.op_type = "FusedConv";
  fused.inputs = conv.inputs;
  fused.outputs = {m.output()};
  fused.attrs = conv.attrs;
  fused.attrs.set_string("activation", "Relu");
  fused.attrs.set_string("pool", "");
  if (m.has(2)) {
    const Attributes& pool = m.node(2).attrs;
    fused.attrs.set_string("pool", "MaxPool");
    fused.attrs.set_ints("pool_kernel_shape", pool.get_ints("kernel_shape"));
    fused.attrs.set_ints("pool_strides", pool.get_ints("strides", {1, 1}));
    fused.attrs.set_ints("pool_pads", pool.get_ints("pads", {0, 0, 0, 0}));
    fused.attrs.set_ints("pool_dilations", pool.get_ints("dilations", {1, 1}));
    fused.attrs.set_int("pool_ceil_mode", pool.get_int("ceil_mode", 0));
  }
  return fused;
}

}  // namespace

IE_REGISTER_FUSION(conv_relu_pool) {
  return FusionRule{"conv_relu_pool", 40, [](FusionContext& ctx, size_t index) {
                      return fuse(ctx, index, kConvReluPool, "conv_relu_pool", fused_conv);
                    }};
}

}  // namespace ie
