// Recognizes GELU written out around Erf, as the legacy exporter emits nn.GELU():
//   y = x * 0.5 * (1 + erf(x / sqrt(2)))   in any of its multiplication orders
// and replaces the five nodes with one Gelu (exact form).
//
// Two patterns from the scale node cover the orders: 0.5 and x multiplied in after (1 + erf), in either order,
// or x * 0.5 computed beside the chain and multiplied in last. x itself is read twice (by the scale and by a
// Mul), which a chain of ops cannot say: the checks compare those reads against the x the scale divides.
#include <cmath>

#include "engine/planner/fusion_pattern.h"

namespace ie {
namespace {

// `tensor` is a constant scalar within 1e-4 (relative) of `value`.
bool scalar_near(const FusionContext& ctx, const std::string& tensor, double value) {
  double c = 0;
  return !tensor.empty() && ctx.scalar_value(tensor, c) && std::abs(c - value) <= 1e-4 * std::abs(value);
}

// The x of x / sqrt(2) or x * (1 / sqrt(2)) (factors either way round), or "".
std::string scaled_input(const FusionContext& ctx, const Node& scale) {
  if (scale.inputs.size() != 2) return "";
  const std::string& a = scale.inputs[0];
  const std::string& b = scale.inputs[1];
  if (scale.op_type == "Div") return scalar_near(ctx, b, std::sqrt(2.0)) ? a : "";
  if (scalar_near(ctx, b, std::sqrt(0.5))) return a;
  return scalar_near(ctx, a, std::sqrt(0.5)) ? b : "";
}

std::string x_of(const PatternMatch& m) { return scaled_input(m.ctx(), m.root()); }

bool scales_x(const PatternMatch& m, const Node& n) { return !scaled_input(m.ctx(), n).empty(); }

bool adds_one(const PatternMatch& m, const Node& n) { return scalar_near(m.ctx(), m.outside_input(n), 1.0); }

// The first Mul after 1 + erf takes x or 0.5 ...
bool times_x_or_half(const PatternMatch& m, const Node& n) {
  std::string factor = m.outside_input(n);
  return !factor.empty() && (factor == x_of(m) || scalar_near(m.ctx(), factor, 0.5));
}

// ... and the second one the other of the two.
bool times_the_other(const PatternMatch& m, const Node& n) {
  std::string factor = m.outside_input(n);
  bool had_x = m.outside_input(m.node(3)) == x_of(m);
  return had_x ? scalar_near(m.ctx(), factor, 0.5) : !factor.empty() && factor == x_of(m);
}

// x * 0.5 or 0.5 * x.
bool halves_x(const PatternMatch& m, const Node& n) {
  if (n.inputs.size() != 2) return false;
  std::string x = x_of(m);
  return (n.inputs[0] == x && scalar_near(m.ctx(), n.inputs[1], 0.5)) ||
         (n.inputs[1] == x && scalar_near(m.ctx(), n.inputs[0], 0.5));
}

const PatternStep kScale = PatternStep("Div|Mul").when(scales_x);
const PatternStep kPlusOne = PatternStep("Add").when(adds_one);

// (x * (1 + erf)) * 0.5   or   ((1 + erf) * 0.5) * x
const Pattern kHalfAfter = {kScale, "Erf", kPlusOne, PatternStep("Mul").when(times_x_or_half),
                            PatternStep("Mul").when(times_the_other)};
// (x * 0.5) * (1 + erf), the factors of either Mul either way round
const Pattern kHalfBeside = {kScale, "Erf", kPlusOne, PatternStep("Mul").beside(PatternStep("Mul").when(halves_x))};

Node gelu(FusionContext&, const PatternMatch& m) {
  Node n;
  n.name = m.node(1).name + "/gelu";
  n.op_type = "Gelu";
  n.inputs = {x_of(m)};
  n.outputs = {m.output()};
  n.attrs.set_string("approximate", "none");
  return n;
}

bool try_gelu(FusionContext& ctx, size_t index) {
  return fuse(ctx, index, kHalfAfter, "gelu_from_erf", gelu) || fuse(ctx, index, kHalfBeside, "gelu_from_erf", gelu);
}

}  // namespace

IE_REGISTER_FUSION(gelu_from_erf) { return FusionRule{"gelu_from_erf", 10, try_gelu}; }

}  // namespace ie
