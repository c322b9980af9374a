// ie.NormLinear: Y[..., N] = act(norm_act(LayerNorm(A)) W + bias) (+ residual), the planner's fusion of a
// LayerNormalization over A's last dim (or ie.LayerNorm with its activation) feeding ie.Linear (norm_linear). The
// normalized rows never go through memory: the kernel normalizes A as it stages it. Inputs: A, W, bias, residual
// (as ie.Linear's: bias and residual may be ""), then the LayerNorm's scale and bias (may be ""), each of K values.
// Attributes: ie.Linear's (trans_w, activation), epsilon, norm_activation. A fused set's op with no CPU kernel:
// where no set runs it, the planner lowers the two nodes it replaced.
#include "engine/core/dtype_dispatch.h"
#include "engine/registry/op_def.h"
#include "layers/common/gemm.h"
#include "layers/linear/linear_setup.h"

namespace ie {
namespace {

void infer_norm_linear(InferContext& ctx) {
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
      ctx.expect(numel_range(ctx.input(i).shape, 0, ctx.input(i).shape.size()) == s.k, "input ", i, " ",
                 shape_to_string(ctx.input(i).shape), " must hold K = ", s.k, " values");
  ctx.set_output(0, a.dtype, s.out);
}

// The product's flops plus the normalization's (about 8 an element of A, as LayerNormalization's cost).
OpCost norm_linear_cost(const Node& node, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
  OpCost c = dot_product_cost(node, in, out);
  c.flops += 8.0 * static_cast<double>(numel_range(in[0].shape, 0, in[0].shape.size()));
  return c;
}

}  // namespace

IE_REGISTER_OPS(norm_linear) {
  OpRegistry::get().add(OpDef("ie", "NormLinear", infer_norm_linear).with_cost(norm_linear_cost));
}

}  // namespace ie
