// The pattern ie.LayerNorm replaces: LayerNormalization -> activation (Gelu in either approximation, which
// gelu_from_erf has already recognized in the Erf form; Relu, Tanh, Sigmoid). The activation runs on the
// normalized values before they are written, so the row is read once and written once. A LayerNormalization
// whose Mean or InvStdDev output is used does not match (the pattern helper takes single-output nodes only).
// The fused op is matched only where every backend that has it runs it without declining: X in float32 or
// float16 (bfloat16 after lowering), Scale and B constants of one value per normalized element.
#include <cstdint>

#include "engine/planner/fusion_pattern.h"
#include "layers/activation/gelu_setup.h"

namespace ie {
namespace {

bool plain_layer_norm(const PatternMatch& m, const Node& norm) {
  const TensorInfo* x = m.ctx().info(norm.inputs[0]);
  if (!x || x->shape.empty() || (x->dtype != DType::Float32 && x->dtype != DType::Float16)) return false;
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  int64_t axis = norm.attrs.get_int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return false;
  const int64_t n = numel_range(x->shape, static_cast<size_t>(axis), x->shape.size());
  if (n > INT32_MAX) return false;
  for (size_t i = 1; i < 3 && i < norm.inputs.size(); ++i) {
    if (norm.inputs[i].empty()) continue;
    const Tensor* w = m.ctx().constant(norm.inputs[i]);
    if (!w || w->dtype() != x->dtype || w->numel() != n) return false;
  }
  return norm.inputs.size() > 1 && !norm.inputs[1].empty();
}

const Pattern kLayerNormActivation = {PatternStep("LayerNormalization").when(plain_layer_norm),
                                      "Gelu|Relu|Tanh|Sigmoid"};

Node layer_norm_activation(FusionContext&, const PatternMatch& m) {
  const Node& norm = m.root();
  const Node& act = m.node(1);
  Node fused;
  fused.name = norm.name + "/activation";
  fused.domain = "ie";
  fused.op_type = "LayerNorm";
  fused.inputs = norm.inputs;
  fused.outputs = {m.output()};
  fused.attrs = norm.attrs;
  const bool tanh_gelu = act.op_type == "Gelu" && tanh_approximation(act.attrs, act.label());
  fused.attrs.set_string("activation", tanh_gelu ? "GeluTanh" : act.op_type);
  return fused;
}

}  // namespace

IE_REGISTER_FUSION(layer_norm_activation) {
  return FusionRule{"layer_norm_activation", 35, [](FusionContext& ctx, size_t index) {
                      return fuse(ctx, index, kLayerNormActivation, "layer_norm_activation", layer_norm_activation);
                    }};
}

}  // namespace ie
