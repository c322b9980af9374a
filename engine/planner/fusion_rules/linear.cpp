// MatMul by a constant weight (+ Add of a constant bias) and Gemm with constant weights -> ie.Linear, a
// matrix product with the bias added in the same pass. A following activation is absorbed by linear_activation.
#include "engine/planner/fusion.h"

namespace ie {
namespace {

// A constant that broadcasts as a vector of n values over the last dim ([n], [1,n], [1,1,n] ...).
bool is_bias_vector(const Tensor* t, int64_t n) {
  if (!t || t->rank() == 0 || t->shape().back() != n) return false;
  for (size_t i = 0; i + 1 < t->rank(); ++i)
    if (t->dim(i) != 1) return false;
  return true;
}

bool is_float_weight(const Tensor* w) {
  return w && w->rank() == 2 && (w->dtype() == DType::Float32 || w->dtype() == DType::Float16);
}

Node make_linear(const Node& root, const std::string& a, const std::string& w, const std::string& bias,
                 const std::string& y, int64_t trans_w) {
  Node n;
  n.name = root.name + "/linear";
  n.domain = "ie";
  n.op_type = "Linear";
  n.inputs = {a, w};
  if (!bias.empty()) n.inputs.push_back(bias);
  n.outputs = {y};
  n.attrs.set_int("trans_w", trans_w);
  n.attrs.set_string("activation", "");
  return n;
}

bool try_matmul_add(FusionContext& ctx, size_t index) {
  const Node& mm = ctx.node(index);
  if (mm.op_type != "MatMul" || !mm.domain.empty()) return false;
  const Tensor* w = ctx.constant(mm.inputs[1]);
  const TensorInfo* a = ctx.info(mm.inputs[0]);
  if (!is_float_weight(w) || !a || a->shape.size() < 2 || a->dtype != w->dtype()) return false;
  int64_t n = w->dim(1);
  std::vector<size_t> matched = {index};
  std::string y = mm.outputs[0], bias;
  int add_index = ctx.sole_consumer(mm.outputs[0]);
  if (add_index >= 0) {
    const Node& add = ctx.node(add_index);
    if (add.op_type == "Add" && add.domain.empty() && add.inputs.size() == 2) {
      std::string other = add.inputs[0] == mm.outputs[0] ? add.inputs[1] : add.inputs[0];
      const Tensor* b = ctx.constant(other);
      if (is_bias_vector(b, n) && b->dtype() == w->dtype()) {
        bias = b->rank() == 1 ? other : ctx.add_constant(other + "_vector", b->reshaped({n}));
        matched.push_back(add_index);
        y = add.outputs[0];
      }
    }
  }
  return ctx.replace(matched, make_linear(mm, mm.inputs[0], mm.inputs[1], bias, y, 0), "linear");
}

bool try_gemm(FusionContext& ctx, size_t index) {
  const Node& gemm = ctx.node(index);
  if (gemm.op_type != "Gemm" || !gemm.domain.empty()) return false;
  if (gemm.attrs.get_int("transA", 0) != 0 || gemm.attrs.get_float("alpha", 1.f) != 1.f) return false;
  const Tensor* w = ctx.constant(gemm.inputs[1]);
  const TensorInfo* a = ctx.info(gemm.inputs[0]);
  if (!is_float_weight(w) || !a || a->shape.size() != 2 || a->dtype != w->dtype()) return false;
  int64_t trans_b = gemm.attrs.get_int("transB", 0);
  int64_t n = trans_b ? w->dim(0) : w->dim(1);
  std::string bias;
  if (gemm.inputs.size() > 2 && !gemm.inputs[2].empty()) {
    const Tensor* c = ctx.constant(gemm.inputs[2]);
    if (gemm.attrs.get_float("beta", 1.f) != 1.f || !is_bias_vector(c, n) || c->dtype() != w->dtype()) return false;
    bias = c->rank() == 1 ? gemm.inputs[2] : ctx.add_constant(gemm.inputs[2] + "_vector", c->reshaped({n}));
  }
  return ctx.replace({index}, make_linear(gemm, gemm.inputs[0], gemm.inputs[1], bias, gemm.outputs[0], trans_b), "linear");
}

bool try_linear(FusionContext& ctx, size_t index) { return try_matmul_add(ctx, index) || try_gemm(ctx, index); }

bool try_activation(FusionContext& ctx, size_t index) {
  const Node& lin = ctx.node(index);
  if (lin.op_type != "Linear" || lin.domain != "ie" || !lin.attrs.get_string("activation", "").empty()) return false;
  int act_index = ctx.sole_consumer(lin.outputs[0]);
  if (act_index < 0) return false;
  const Node& act = ctx.node(act_index);
  if (!act.domain.empty()) return false;
  bool ok = act.op_type == "Relu" || act.op_type == "Tanh" || act.op_type == "Sigmoid" ||
            (act.op_type == "Gelu" && act.attrs.get_string("approximate", "none") == "none");
  if (!ok) return false;
  Node fused = lin;
  fused.covers.clear();
  fused.outputs = {act.outputs[0]};
  fused.attrs.set_string("activation", act.op_type);
  return ctx.replace({index, static_cast<size_t>(act_index)}, std::move(fused), "linear_activation");
}

}  // namespace

IE_REGISTER_FUSION(linear) { return FusionRule{"linear", 20, try_linear}; }
IE_REGISTER_FUSION(linear_activation) { return FusionRule{"linear_activation", 30, try_activation}; }

}  // namespace ie
