// The patterns ie.Linear replaces. linear: MatMul by a constant weight (+ Add of a constant bias), and Gemm with
// constant weights, become a matrix product with the bias added in the same pass. linear_activation: a Linear
// followed by an activation runs the activation in the same pass too. linear_residual: a Linear without an
// activation followed by an Add of a tensor of its output's shape (a transformer's h + Linear(y)) adds that
// tensor in the same pass, as input 3.
#include "engine/planner/fusion_pattern.h"

namespace ie {
namespace {

// A constant that broadcasts as a vector of n values over the last dim ([n], [1,n], [1,1,n] ...).
bool is_bias_vector(const Tensor* t, int64_t n) {
  if (!t || t->rank() == 0 || t->shape().back() != n) return false;
  for (size_t i = 0; i + 1 < t->rank(); ++i)
    if (t->dim(i) != 1) return false;
  return true;
}

// Input 1 is a constant float matrix of the dtype of input 0, A, which has at least two dims.
bool float_weight(const PatternMatch& m, const Node& n) {
  const Tensor* w = m.ctx().constant(n.inputs[1]);
  const TensorInfo* a = m.ctx().info(n.inputs[0]);
  return w && w->rank() == 2 && (w->dtype() == DType::Float32 || w->dtype() == DType::Float16) && a &&
         a->shape.size() >= 2 && a->dtype == w->dtype();
}

// The Add's other input is a bias vector over the product's N columns, of the weight's dtype.
bool adds_bias(const PatternMatch& m, const Node& add) {
  const Tensor* w = m.ctx().constant(m.root().inputs[1]);
  const Tensor* b = m.ctx().constant(m.outside_input(add));
  return is_bias_vector(b, w->dim(1)) && b->dtype() == w->dtype();
}

int64_t gemm_n(const Tensor& w, const Node& gemm) { return gemm.attrs.get_int("transB", 0) ? w.dim(0) : w.dim(1); }

// alpha 1, no transA, and C (when given) a bias vector scaled by beta 1.
bool plain_gemm(const PatternMatch& m, const Node& gemm) {
  if (gemm.attrs.get_int("transA", 0) != 0 || gemm.attrs.get_float("alpha", 1.f) != 1.f) return false;
  if (!float_weight(m, gemm) || m.ctx().info(gemm.inputs[0])->shape.size() != 2) return false;
  if (gemm.inputs.size() < 3 || gemm.inputs[2].empty()) return true;
  const Tensor* w = m.ctx().constant(gemm.inputs[1]);
  const Tensor* c = m.ctx().constant(gemm.inputs[2]);
  return gemm.attrs.get_float("beta", 1.f) == 1.f && is_bias_vector(c, gemm_n(*w, gemm)) && c->dtype() == w->dtype();
}

bool no_activation_yet(const PatternMatch&, const Node& lin) { return lin.attrs.get_string("activation", "").empty(); }

// The Linear kernels run exact GELU only.
bool exact_gelu(const PatternMatch&, const Node& act) {
  return act.op_type != "Gelu" || act.attrs.get_string("approximate", "none") == "none";
}

// No activation and no residual yet: the residual is added to the plain product.
bool plain_product(const PatternMatch&, const Node& lin) {
  return lin.attrs.get_string("activation", "").empty() && (lin.inputs.size() < 4 || lin.inputs[3].empty());
}

// The Add's other input has the product's shape and type (no broadcasting: that would be a bias).
bool adds_residual(const PatternMatch& m, const Node& add) {
  const std::string other = m.outside_input(add);
  const TensorInfo* r = other.empty() ? nullptr : m.ctx().info(other);
  const TensorInfo* y = m.ctx().info(m.root().outputs[0]);
  return r && y && r->dtype == y->dtype && r->shape == y->shape;
}

const Pattern kMatMulAdd = {PatternStep("MatMul").when(float_weight), PatternStep("Add?").when(adds_bias)};
const Pattern kGemm = {PatternStep("Gemm").constant_input(2).when(plain_gemm)};
const Pattern kLinearResidual = {PatternStep("ie.Linear").when(plain_product), PatternStep("Add").when(adds_residual)};
const Pattern kLinearActivation = {PatternStep("ie.Linear").when(no_activation_yet),
                                   PatternStep("Relu|Tanh|Sigmoid|Gelu").when(exact_gelu)};

// The bias as the [n] vector ie.Linear reads, adding a reshaped copy when it is [1, n] or the like.
std::string bias_vector(FusionContext& ctx, const std::string& name, int64_t n) {
  const Tensor& b = *ctx.constant(name);
  return b.rank() == 1 ? name : ctx.add_constant(name + "_vector", b.reshaped({n}));
}

Node make_linear(const Node& root, const std::string& bias, const std::string& y, int64_t trans_w) {
  Node n;
  n.name = root.name + "/linear";
  n.domain = "ie";
  n.op_type = "Linear";
  n.inputs = {root.inputs[0], root.inputs[1]};
  if (!bias.empty()) n.inputs.push_back(bias);
  n.outputs = {y};
  n.attrs.set_int("trans_w", trans_w);
  n.attrs.set_string("activation", "");
  return n;
}

Node linear_from_matmul(FusionContext& ctx, const PatternMatch& m) {
  std::string bias;
  if (m.has(1)) bias = bias_vector(ctx, m.outside_input(m.node(1)), ctx.constant(m.root().inputs[1])->dim(1));
  return make_linear(m.root(), bias, m.output(), 0);
}

Node linear_from_gemm(FusionContext& ctx, const PatternMatch& m) {
  const Node& gemm = m.root();
  std::string bias;
  if (gemm.inputs.size() > 2 && !gemm.inputs[2].empty())
    bias = bias_vector(ctx, gemm.inputs[2], gemm_n(*ctx.constant(gemm.inputs[1]), gemm));
  return make_linear(gemm, bias, m.output(), gemm.attrs.get_int("transB", 0));
}

Node linear_with_activation(FusionContext&, const PatternMatch& m) {
  Node fused = m.root();
  fused.covers.clear();  // replace() collects the covers of every matched node
  fused.outputs = {m.output()};
  fused.attrs.set_string("activation", m.node(1).op_type);
  return fused;
}

Node linear_with_residual(FusionContext&, const PatternMatch& m) {
  Node fused = m.root();
  fused.covers.clear();  // replace() collects the covers of every matched node
  fused.outputs = {m.output()};
  fused.inputs.resize(3);  // an absent bias stays "" so that the residual is input 3
  fused.inputs.push_back(m.outside_input(m.node(1)));
  return fused;
}

bool try_linear(FusionContext& ctx, size_t index) {
  return fuse(ctx, index, kMatMulAdd, "linear", linear_from_matmul) ||
         fuse(ctx, index, kGemm, "linear", linear_from_gemm);
}

bool try_activation(FusionContext& ctx, size_t index) {
  return fuse(ctx, index, kLinearActivation, "linear_activation", linear_with_activation);
}

}  // namespace

IE_REGISTER_FUSION(linear) { return FusionRule{"linear", 20, try_linear}; }
IE_REGISTER_FUSION(linear_activation) { return FusionRule{"linear_activation", 30, try_activation}; }
IE_REGISTER_FUSION(linear_residual) {
  return FusionRule{"linear_residual", 50, [](FusionContext& ctx, size_t index) {
                      return fuse(ctx, index, kLinearResidual, "linear_residual", linear_with_residual);
                    }};
}

}  // namespace ie
