// The pattern ie.NormLinear replaces: a LayerNormalization over the last dim (or ie.LayerNorm with its activation)
// whose only reader is ie.Linear's A. Runs after the precision pass, on the types the steps will have: only float32
// chains match (the fused set's kernel is the strict-fp32 FFMA product, whose staging of A normalizes it), and
// after sample_resident, which takes whole chains first. Where the kernel declines (rows, mode, shape) the planner
// lowers the two nodes it replaced, each saying why.
#include "engine/planner/fusion_pattern.h"

namespace ie {
namespace {

// float32 X normalized over its last dim only; Scale (and B when given) constant float32 of K values.
bool norm_over_rows(const PatternMatch& m, const Node& norm) {
  const TensorInfo* x = m.ctx().info(norm.inputs[0]);
  if (!x || x->shape.empty() || x->dtype != DType::Float32) return false;
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  const int64_t axis = norm.attrs.get_int("axis", -1);
  if (axis != -1 && axis != rank - 1) return false;
  if (norm.inputs.size() < 2 || norm.inputs[1].empty()) return false;
  for (size_t i = 1; i < 3 && i < norm.inputs.size(); ++i) {
    if (norm.inputs[i].empty()) continue;
    const Tensor* w = m.ctx().constant(norm.inputs[i]);
    if (!w || w->dtype() != DType::Float32 || w->numel() != x->shape.back()) return false;
  }
  return true;
}

bool float_linear(const PatternMatch& m, const Node& lin) {
  const TensorInfo* a = m.ctx().info(lin.inputs[0]);
  return a && a->dtype == DType::Float32;
}

const Pattern kNormLinear = {PatternStep("LayerNormalization|ie.LayerNorm").when(norm_over_rows),
                             PatternStep("ie.Linear").fed_at(0).when(float_linear)};

Node norm_linear(FusionContext&, const PatternMatch& m) {
  const Node& norm = m.root();
  const Node& lin = m.node(1);
  Node fused;
  fused.name = lin.name + "/norm";
  fused.domain = "ie";
  fused.op_type = "NormLinear";
  fused.inputs = lin.inputs;
  fused.inputs[0] = norm.inputs[0];
  fused.inputs.resize(4);  // ie.Linear's bias and residual, "" where absent
  fused.inputs.push_back(norm.inputs[1]);
  fused.inputs.push_back(norm.inputs.size() > 2 ? norm.inputs[2] : "");
  fused.outputs = {m.output()};
  fused.attrs = lin.attrs;
  fused.attrs.set_float("epsilon", norm.attrs.get_float("epsilon", 1e-5f));
  fused.attrs.set_string("norm_activation", norm.attrs.get_string("activation", ""));
  return fused;
}

}  // namespace

IE_REGISTER_FUSION(norm_linear) {
  FusionRule rule{"norm_linear", 950, [](FusionContext& ctx, size_t index) {
                    return fuse(ctx, index, kNormLinear, "norm_linear", norm_linear);
                  }};
  rule.after_precision = true;  // float32 chains only, as the steps will run
  return rule;
}

}  // namespace ie
