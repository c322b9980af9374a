// PRelu: y = x < 0 ? slope * x : x, with slope broadcast to x's shape (unidirectionally).
#include "layers/common/binary.h"

namespace ie {
namespace {

void infer_prelu(InferContext& ctx) {
  ctx.expect(ctx.has_input(0) && ctx.has_input(1), "expects 2 inputs (X, slope)");
  expect_type(ctx, 0, TypeClass::Signed);
  expect_same_type(ctx, 0, 1);
  const Shape& x = ctx.input(0).shape;
  const Shape& slope = ctx.input(1).shape;
  Shape out = broadcast_shapes(x, slope, ctx.node().label());
  ctx.expect(out == x, "slope of shape ", shape_to_string(slope), " does not broadcast to X's shape ",
             shape_to_string(x));
  ctx.set_output(0, ctx.input(0).dtype, x);
}

}  // namespace

IE_REGISTER_OPS(prelu) {
  OpRegistry::get().add(OpDef("", "PRelu", infer_prelu).with_cost(per_element_cost(1)));
  OpRegistry::get().add_kernel("", "PRelu", kernel_set::kCpu, [](const KernelInit& init) {
    return make_binary_kernel<TypeClass::Signed, false>(init, [](auto x, auto slope) {
      using C = decltype(x);
      return x < C(0) ? C(slope * x) : x;
    });
  });
}

}  // namespace ie
