// Clip: y = min(max(x, lo), hi). Opset >= 11 takes lo and hi as optional scalar inputs (read at run time);
// earlier opsets take float attributes min and max. Integer inputs are allowed from opset 12.
#include <limits>

#include "layers/common/elementwise.h"

namespace ie {
namespace {

void infer_clip(InferContext& ctx) {
  ctx.expect(ctx.has_input(0), "expects input X");
  expect_type(ctx, 0, ctx.opset() >= 12 ? TypeClass::Numeric : TypeClass::Float);
  if (ctx.opset() >= 11) {
    for (size_t i = 1; i < 3; ++i) {
      if (!ctx.has_input(i)) continue;
      expect_same_type(ctx, 0, i);
      const Shape& s = ctx.input(i).shape;
      ctx.expect(numel_range(s, 0, s.size()) == 1, "input ", i, " (", i == 1 ? "min" : "max",
                 ") must be a scalar, got shape ", shape_to_string(s));
    }
  }
  ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
}

std::unique_ptr<Kernel> make_clip_cpu(const KernelInit& init) {
  const bool from_inputs = init.opset >= 11;
  const float attr_lo = init.node.attrs.get_float("min", std::numeric_limits<float>::lowest());
  const float attr_hi = init.node.attrs.get_float("max", std::numeric_limits<float>::max());
  const std::string where = init.node.label();
  return dispatch_numeric(init.inputs[0].dtype, where.c_str(), [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    return make_kernel([=](KernelContext& ctx) {
      C lo = std::numeric_limits<C>::lowest(), hi = std::numeric_limits<C>::max();
      if (from_inputs) {
        if (ctx.inputs.size() > 1 && ctx.inputs[1].present()) lo = C(ctx.inputs[1].as<T>()[0]);
        if (ctx.inputs.size() > 2 && ctx.inputs[2].present()) hi = C(ctx.inputs[2].as<T>()[0]);
      } else {
        lo = static_cast<C>(attr_lo);
        hi = static_cast<C>(attr_hi);
      }
      map_unary(ctx.inputs[0].as<T>(), ctx.outputs[0].as<T>(), ctx.inputs[0].numel(), [lo, hi](C x) {
        C y = x < lo ? lo : x;
        return y > hi ? hi : y;
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(clip) {
  OpRegistry::get().add(OpDef("", "Clip", infer_clip).with_cost(per_element_cost(1)));
  OpRegistry::get().add_kernel("", "Clip", kernel_set::kCpu, make_clip_cpu);
}

}  // namespace ie
