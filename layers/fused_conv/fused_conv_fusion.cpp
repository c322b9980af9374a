// The pattern ie.FusedConv replaces: Conv -> Relu (-> MaxPool). The activation and the pooling run in the conv's
// epilogue, so the full-resolution activation map never goes through memory. A backend that cannot pool in the
// epilogue gets Conv + Relu (the pattern's shorter form). A second rule folds a float32 input's Cast into it, a
// third joins two pooled convolutions in a row (ie.FusedConvPair).
#include "engine/planner/fusion_pattern.h"
#include "layers/fused_conv/fused_conv_setup.h"

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

// In the fp16/bf16 modes the precision pass casts the graph's float32 input before the first convolution: a step
// that reads 4 bytes and writes 2 per pixel, which the convolution reads again. The fused kernel rounds float32
// pixels to its operand type as it stages them, so the Cast folds into the node (after the precision pass).
bool float32_to_16_bit(const PatternMatch& m, const Node& cast) {
  const TensorInfo* in = m.ctx().info(cast.inputs[0]);
  const TensorInfo* out = m.ctx().info(cast.outputs[0]);
  return in && out && folded_input_cast(in->dtype, out->dtype);
}

bool weights_of_cast_type(const PatternMatch& m, const Node& conv) {
  const TensorInfo* w = m.ctx().info(conv.inputs[1]);
  const TensorInfo* x = m.ctx().info(conv.inputs[0]);
  return w && x && w->dtype == x->dtype;
}

const Pattern kCastConv = {
    PatternStep("Cast").when(float32_to_16_bit),
    PatternStep("ie.FusedConv").fed_at(0).constant_input(1).when(weights_of_cast_type),
};

Node conv_reading_float32(FusionContext&, const PatternMatch& m) {
  Node fused = m.node(1);
  fused.replaced.clear();  // ctx.replace records the Cast and the FusedConv (with its own parts) instead
  fused.covers.clear();
  fused.inputs[0] = m.root().inputs[0];
  return fused;
}

// Two pooled convolutions in a row, the first one's output read by the second only: ie.FusedConvPair (one kernel
// keeps the map on chip; where the two kernels apart are faster, or a shape is outside the pair's range, the cuda
// kernel declines and the two FusedConv nodes run as they were). After the input Cast's folding, so that the first
// conv may read the graph's float32 input.
bool pooled_relu_conv(const PatternMatch&, const Node& conv) {
  return conv.attrs.get_string("activation", "") == "Relu" && conv.attrs.get_string("pool", "") == "MaxPool";
}

const Pattern kConvPair = {
    PatternStep("ie.FusedConv").constant_input(1).constant_input(2).when(pooled_relu_conv),
    PatternStep("ie.FusedConv").fed_at(0).constant_input(1).constant_input(2).when(pooled_relu_conv),
};

Node conv_pair(FusionContext&, const PatternMatch& m) {
  const Node& first = m.node(0);
  const Node& second = m.node(1);
  Node pair;
  pair.name = first.name + "/pair";
  pair.domain = "ie";
  pair.op_type = "FusedConvPair";
  auto input = [](const Node& n, size_t i) { return i < n.inputs.size() ? n.inputs[i] : std::string(); };
  pair.inputs = {first.inputs[0], first.inputs[1], input(first, 2), second.inputs[1], input(second, 2)};
  pair.outputs = {m.output()};
  return pair;
}

}  // namespace

IE_REGISTER_FUSION(conv_pair) {
  FusionRule rule{"conv_pair", 860,
                  [](FusionContext& ctx, size_t index) { return fuse(ctx, index, kConvPair, "conv_pair", conv_pair); }};
  rule.after_precision = true;
  return rule;
}

IE_REGISTER_FUSION(conv_input_cast) {
  FusionRule rule{"conv_input_cast", 850, [](FusionContext& ctx, size_t index) {
                    return fuse(ctx, index, kCastConv, "conv_input_cast", conv_reading_float32);
                  }};
  rule.after_precision = true;  // the Cast exists only after the precision pass
  return rule;
}

IE_REGISTER_FUSION(conv_relu_pool) {
  return FusionRule{"conv_relu_pool", 40, [](FusionContext& ctx, size_t index) {
                      return fuse(ctx, index, kConvReluPool, "conv_relu_pool", fused_conv);
                    }};
}

}  // namespace ie
