// The pattern ie.LinearNorm replaces: an ie.Linear whose output h a LayerNormalization over its last dim (or
// ie.LayerNorm with its activation) reads as X. h may have other readers (a transformer's residual stream reads the
// sum it normalizes): the fused node then keeps h as output 0, and every other reader must come after the
// LayerNorm, where the fused node takes its place. Runs after the precision pass, on the types the steps will
// have: only float32 chains match (the fused set's kernel is the strict-fp32 FFMA product, whose CTA holds whole
// rows for N <= 64), and after sample_resident, which takes whole chains first. Where the kernel declines (rows,
// mode, shape) the planner lowers the two nodes it replaced, each saying why.
#include <string>

#include "engine/planner/fusion_pattern.h"

namespace ie {
namespace {

// A float32 LayerNorm of X = `h` over its last dim alone, with constant float32 Scale (and B) of N values, and no
// Mean or InvStdDev output in use.
bool norm_of(FusionContext& ctx, const Node& norm, const std::string& h) {
  if (norm.op_type != "LayerNormalization" && !(norm.domain == "ie" && norm.op_type == "LayerNorm")) return false;
  if (norm.op_type == "LayerNormalization" && !norm.domain.empty()) return false;
  if (norm.inputs.empty() || norm.inputs[0] != h || norm.inputs.size() < 2 || norm.inputs[1].empty()) return false;
  for (size_t i = 1; i < norm.outputs.size(); ++i)
    if (!norm.outputs[i].empty() &&
        (!ctx.consumers(norm.outputs[i]).empty() || ctx.graph().is_graph_output(norm.outputs[i])))
      return false;
  const TensorInfo* x = ctx.info(h);
  if (!x || x->shape.empty() || x->dtype != DType::Float32) return false;
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  const int64_t axis = norm.attrs.get_int("axis", -1);
  if (axis != -1 && axis != rank - 1) return false;
  for (size_t i = 1; i < 3 && i < norm.inputs.size(); ++i) {
    if (norm.inputs[i].empty()) continue;
    const Tensor* w = ctx.constant(norm.inputs[i]);
    if (!w || w->dtype() != DType::Float32 || w->numel() != x->shape.back()) return false;
  }
  return true;
}

bool try_linear_norm(FusionContext& ctx, size_t index) {
  const Node& lin = ctx.node(index);
  if (lin.domain != "ie" || lin.op_type != "Linear" || lin.outputs.size() != 1) return false;
  const std::string& h = lin.outputs[0];
  const TensorInfo* a = ctx.info(lin.inputs[0]);
  if (!a || a->dtype != DType::Float32) return false;
  int norm_index = -1;
  const std::vector<size_t> readers = ctx.consumers(h);
  for (size_t r : readers)
    if (!ctx.is_taken(r) && norm_of(ctx, ctx.node(r), h)) {
      norm_index = static_cast<int>(r);
      break;
    }
  if (norm_index < 0) return false;
  bool others = ctx.graph().is_graph_output(h);
  for (size_t r : readers) {
    if (static_cast<int>(r) == norm_index) continue;
    if (r < static_cast<size_t>(norm_index)) return false;  // it would read h before the fused node writes it
    others = true;
  }
  const Node& norm = ctx.node(norm_index);
  Node fused;
  fused.name = lin.name + "/norm";
  fused.domain = "ie";
  fused.op_type = "LinearNorm";
  fused.inputs = lin.inputs;
  fused.inputs.resize(4);  // ie.Linear's bias and residual, "" where absent
  fused.inputs.push_back(norm.inputs[1]);
  fused.inputs.push_back(norm.inputs.size() > 2 ? norm.inputs[2] : "");
  fused.outputs = {others ? h : "", norm.outputs[0]};
  fused.attrs = lin.attrs;
  fused.attrs.set_float("epsilon", norm.attrs.get_float("epsilon", 1e-5f));
  fused.attrs.set_string("norm_activation", norm.attrs.get_string("activation", ""));
  return ctx.replace({index, static_cast<size_t>(norm_index)}, fused, "linear_norm");
}

}  // namespace

IE_REGISTER_FUSION(linear_norm) {
  FusionRule rule{"linear_norm", 950, try_linear_norm};
  rule.after_precision = true;  // float32 chains only, as the steps will run
  return rule;
}

}  // namespace ie
