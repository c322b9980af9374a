// ie.LinearNorm: h = act(A W + bias) (+ residual), as ie.Linear, and Y = norm_act(LayerNorm(h)) over h's last dim,
// the planner's fusion of an ie.Linear whose output a LayerNormalization (or ie.LayerNorm with its activation)
// reads (linear_norm). Output 0 is h, "" where nothing else reads it; output 1 is Y. Inputs: ie.Linear's A, W,
// bias, residual (bias and residual may be ""), then the LayerNorm's scale and bias (may be ""), of N values each.
// Attributes: ie.Linear's (trans_w, activation), epsilon, norm_activation. A fused set's op with no CPU kernel:
// where no set runs it, the planner lowers the two nodes it replaced.
#include "engine/core/dtype_dispatch.h"
#include "engine/registry/op_def.h"
#include "layers/linear/linear_setup.h"

namespace ie {
namespace {

void infer_linear_norm(InferContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  ctx.expect(is_float(a.dtype), "A must be a float tensor, got ", dtype_name(a.dtype));
  ctx.expect(ctx.has_input(4), "input 4 (the LayerNorm's scale) is required");
  for (size_t i = 1; i < 6; ++i)
    if (ctx.has_input(i))
      ctx.expect(ctx.input(i).dtype == a.dtype, "input ", i, " is ", dtype_name(ctx.input(i).dtype), " but A is ",
                 dtype_name(a.dtype));
  const LinearSetup s =
      resolve_linear(ctx.node(), a.shape, ctx.input(1).shape, ctx.has_input(2) ? &ctx.input(2).shape : nullptr,
                     ctx.has_input(3) ? &ctx.input(3).shape : nullptr);
  for (size_t i = 4; i < 6; ++i)
    if (ctx.has_input(i))
      ctx.expect(numel_range(ctx.input(i).shape, 0, ctx.input(i).shape.size()) == s.n, "input ", i, " ",
                 shape_to_string(ctx.input(i).shape), " must hold N = ", s.n, " values");
  ctx.set_output(0, a.dtype, s.out);
  ctx.set_output(1, a.dtype, s.out);
}

// The product's flops (2 K an element of Y, output 1: h may be absent) plus the LayerNorm's (about 8 an element).
OpCost linear_norm_cost(const Node&, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
  const double elements = static_cast<double>(numel_range(out[1].shape, 0, out[1].shape.size()));
  return OpCost{(2.0 * static_cast<double>(in[0].shape.back()) + 8.0) * elements, io_bytes(in, out)};
}

}  // namespace

IE_REGISTER_OPS(linear_norm) {
  OpRegistry::get().add(OpDef("ie", "LinearNorm", infer_linear_norm).with_cost(linear_norm_cost));
}

}  // namespace ie
