#include "layers/common/binary.h"

namespace ie {

void infer_binary(InferContext& ctx, TypeClass cls, DType out_dtype) {
  ctx.expect(ctx.has_input(0) && ctx.has_input(1), "expects 2 inputs");
  expect_type(ctx, 0, cls);
  expect_same_type(ctx, 0, 1);
  Shape out = broadcast_shapes(ctx.input(0).shape, ctx.input(1).shape, ctx.node().label());
  ctx.set_output(0, out_dtype == DType::Undefined ? ctx.input(0).dtype : out_dtype, out);
}

}  // namespace ie
