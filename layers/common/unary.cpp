#include "layers/common/unary.h"

namespace ie {

void infer_unary(InferContext& ctx, TypeClass cls, DType out_dtype) {
  ctx.expect(ctx.has_input(0), "expects 1 input");
  expect_type(ctx, 0, cls);
  ctx.set_output(0, out_dtype == DType::Undefined ? ctx.input(0).dtype : out_dtype, ctx.input(0).shape);
}

}  // namespace ie
