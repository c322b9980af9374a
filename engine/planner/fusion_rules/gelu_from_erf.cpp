// Recognizes GELU written out around Erf, as the legacy exporter emits nn.GELU():
//   y = x * 0.5 * (1 + erf(x / sqrt(2)))   in any of its multiplication orders
// and replaces the five nodes with one Gelu (exact form).
#include <cmath>

#include "engine/planner/fusion.h"

namespace ie {
namespace {

bool near(double a, double b) { return std::abs(a - b) <= 1e-4 * std::abs(b); }

// The input of `node` other than `known`, or "" when `known` is not one of its two inputs.
std::string other_input(const Node& node, const std::string& known) {
  if (node.inputs.size() != 2) return "";
  if (node.inputs[0] == known) return node.inputs[1];
  if (node.inputs[1] == known) return node.inputs[0];
  return "";
}

bool is_binary(const Node& n, const char* op) { return n.op_type == op && n.domain.empty() && n.inputs.size() == 2; }

bool try_gelu(FusionContext& ctx, size_t erf_index) {
  const Node& erf = ctx.node(erf_index);
  if (erf.op_type != "Erf" || !erf.domain.empty()) return false;
  // x / sqrt(2)  or  x * (1 / sqrt(2))
  int scale_index = ctx.producer(erf.inputs[0]);
  if (scale_index < 0 || ctx.sole_consumer(erf.inputs[0]) != static_cast<int>(erf_index)) return false;
  const Node& scale = ctx.node(scale_index);
  double c = 0;
  std::string x;
  if (is_binary(scale, "Div") && ctx.scalar_value(scale.inputs[1], c) && near(c, std::sqrt(2.0))) x = scale.inputs[0];
  else if (is_binary(scale, "Mul") && ctx.scalar_value(scale.inputs[1], c) && near(c, std::sqrt(0.5))) x = scale.inputs[0];
  else if (is_binary(scale, "Mul") && ctx.scalar_value(scale.inputs[0], c) && near(c, std::sqrt(0.5))) x = scale.inputs[1];
  else return false;
  // 1 + erf(.)
  int add_index = ctx.sole_consumer(erf.outputs[0]);
  if (add_index < 0) return false;
  const Node& add = ctx.node(add_index);
  if (!is_binary(add, "Add") || !ctx.scalar_value(other_input(add, erf.outputs[0]), c) || !near(c, 1.0)) return false;
  int m1_index = ctx.sole_consumer(add.outputs[0]);
  if (m1_index < 0 || !is_binary(ctx.node(m1_index), "Mul")) return false;
  const Node& m1 = ctx.node(m1_index);
  std::string partner = other_input(m1, add.outputs[0]);
  std::vector<size_t> matched = {static_cast<size_t>(scale_index), erf_index, static_cast<size_t>(add_index),
                                 static_cast<size_t>(m1_index)};
  std::string y;
  if (partner == x || (ctx.scalar_value(partner, c) && near(c, 0.5))) {
    // (1 + erf) * x, then * 0.5   or   (1 + erf) * 0.5, then * x
    bool had_x = partner == x;
    int m2_index = ctx.sole_consumer(m1.outputs[0]);
    if (m2_index < 0 || !is_binary(ctx.node(m2_index), "Mul")) return false;
    const Node& m2 = ctx.node(m2_index);
    std::string last = other_input(m2, m1.outputs[0]);
    if (had_x ? !(ctx.scalar_value(last, c) && near(c, 0.5)) : last != x) return false;
    matched.push_back(m2_index);
    y = m2.outputs[0];
  } else {
    // (x * 0.5) * (1 + erf)
    int half_index = ctx.producer(partner);
    if (half_index < 0 || ctx.sole_consumer(partner) != m1_index) return false;
    const Node& half = ctx.node(half_index);
    if (!is_binary(half, "Mul") || other_input(half, x).empty() || !ctx.scalar_value(other_input(half, x), c) ||
        !near(c, 0.5))
      return false;
    matched.push_back(half_index);
    y = m1.outputs[0];
  }
  Node gelu;
  gelu.name = erf.name + "/gelu";
  gelu.op_type = "Gelu";
  gelu.inputs = {x};
  gelu.outputs = {y};
  gelu.attrs.set_string("approximate", "none");
  return ctx.replace(matched, std::move(gelu), "gelu_from_erf");
}

}  // namespace

IE_REGISTER_FUSION(gelu_from_erf) { return FusionRule{"gelu_from_erf", 10, try_gelu}; }

}  // namespace ie
