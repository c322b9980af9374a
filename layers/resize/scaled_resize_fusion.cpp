// The pattern ie.ScaledResize replaces: an integer image cast to float, scaled by a constant, reshaped (an
// Unsqueeze adding the channel axis) and resized, as a model config's pre-processing writes it (cast, scale,
// unsqueeze, resize). Unfused, the cast and the scaling each read and write the whole float image before the
// resize reads it again; fused, the resize reads the integers and scales them as it stages each plane.
//
// The rule runs after the precision pass, so in fp16/bf16 the Cast already produces the storage type and the
// scalar is stored in it: the node scales by that stored value, in float, with no rounding in between.
#include "engine/planner/fusion_pattern.h"
#include "layers/resize/resize_setup.h"

namespace ie {
namespace {

bool float_output(DType t) { return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16; }

bool integer_to_float(const PatternMatch& m, const Node& cast) {
  const TensorInfo* in = m.ctx().info(cast.inputs[0]);
  const TensorInfo* out = m.ctx().info(cast.outputs[0]);
  return in && out && scaled_resize_input(in->dtype) && float_output(out->dtype);
}

// The scalar factor of `n` (x * c, c * x or x / c with a non-zero c), when the result keeps x's shape and type.
bool scalar_factor(const PatternMatch& m, const Node& n, double* factor) {
  const std::string& x = m.root().outputs[0];
  const TensorInfo* in = m.ctx().info(x);
  const TensorInfo* out = m.ctx().info(n.outputs[0]);
  if (!in || !out || in->shape != out->shape || in->dtype != out->dtype || n.inputs.size() != 2) return false;
  if (n.op_type == "Div") return n.inputs[0] == x && m.ctx().scalar_value(n.inputs[1], *factor) && *factor != 0;
  const std::string& c = n.inputs[0] == x ? n.inputs[1] : n.inputs[0];
  return c != x && m.ctx().scalar_value(c, *factor);
}

bool by_scalar(const PatternMatch& m, const Node& n) {
  double factor = 0;
  return scalar_factor(m, n, &factor);
}

// Resize reads its scales, sizes and roi at plan time.
bool constant_resize(const PatternMatch& m, const Node& resize) {
  for (size_t i = 1; i < resize.inputs.size(); ++i)
    if (!resize.inputs[i].empty() && !m.ctx().constant(resize.inputs[i])) return false;
  return true;
}

const Pattern kScaledResize = {
    PatternStep("Cast").when(integer_to_float),
    PatternStep("Mul|Div?").when(by_scalar),
    "Unsqueeze|Reshape|Flatten|Squeeze?",
    PatternStep("Resize").fed_at(0).when(constant_resize),
};

Node scaled_resize(FusionContext& ctx, const PatternMatch& m) {
  const Node& resize = m.node(3);
  Node fused;
  fused.name = resize.name + "/scaled";
  fused.domain = "ie";
  fused.op_type = "ScaledResize";
  fused.inputs = resize.inputs;
  fused.inputs[0] = m.root().inputs[0];
  fused.outputs = {m.output()};
  fused.attrs = resize.attrs;
  fused.attrs.set_int("to", static_cast<int64_t>(ctx.info(m.root().outputs[0])->dtype));
  double factor = 1;
  if (m.has(1)) {
    scalar_factor(m, m.node(1), &factor);
    fused.attrs.set_int("input_divide", m.node(1).op_type == "Div" ? 1 : 0);
  }
  fused.attrs.set_float("input_factor", static_cast<float>(factor));
  if (m.has(2)) fused.attrs.set_ints("input_shape", ctx.info(resize.inputs[0])->shape);
  return fused;
}

}  // namespace

IE_REGISTER_FUSION(scaled_resize) {
  FusionRule rule{"scaled_resize", 840, [](FusionContext& ctx, size_t index) {
                    return fuse(ctx, index, kScaledResize, "scaled_resize", scaled_resize);
                  }};
  rule.after_precision = true;  // the Cast's float type and the scalar's stored value are the mode's
  return rule;
}

}  // namespace ie
