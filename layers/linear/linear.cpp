// ie.Linear: Y[..., N] = act(A[..., K] W + bias) (+ residual), the planner's fusion of MatMul/Gemm -> Add ->
// activation, and of a following Add of a tensor of Y's shape (linear_residual).
// trans_w = 1: W is [N, K] (Gemm transB = 1, PyTorch's layout); 0: W is [K, N] (MatMul's layout).
#include "engine/registry/op_def.h"
#include "layers/common/activation.h"
#include "layers/common/compute_type.h"
#include "layers/common/gemm.h"
#include "layers/linear/linear_setup.h"

namespace ie {
namespace {

void infer_linear(InferContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  ctx.expect(is_float(a.dtype), "A must be a float tensor, got ", dtype_name(a.dtype));
  for (size_t i = 1; i < 4; ++i)
    if (ctx.has_input(i))
      ctx.expect(ctx.input(i).dtype == a.dtype, "input ", i, " is ", dtype_name(ctx.input(i).dtype), " but A is ",
                 dtype_name(a.dtype));
  LinearSetup s =
      resolve_linear(ctx.node(), a.shape, ctx.input(1).shape, ctx.has_input(2) ? &ctx.input(2).shape : nullptr,
                     ctx.has_input(3) ? &ctx.input(3).shape : nullptr);
  ctx.set_output(0, a.dtype, s.out);
}

std::unique_ptr<Kernel> make_linear_cpu(const KernelInit& init) {
  const bool has_bias = init.has_input(2);
  LinearSetup s =
      resolve_linear(init.node, init.inputs[0].shape, init.inputs[1].shape, has_bias ? &init.inputs[2].shape : nullptr,
                     init.has_input(3) ? &init.inputs[3].shape : nullptr);
  if (!is_float(init.inputs[0].dtype)) return nullptr;
  return dispatch_float(init.inputs[0].dtype, "Linear", [&](auto tag) -> std::unique_ptr<Kernel> {
    using C = ComputeOf<typename decltype(tag)::type>;
    WeightInput<C> w_in(init, 1), b_in(init, 2);
    return make_kernel([s, w_in, b_in](KernelContext& ctx) {
      ComputeBuffer<C> as, ws, bs;
      const C* a = as_compute<C>(ctx.inputs[0], as);
      const C* w = w_in.get(ctx, ws);
      const C* bias = b_in.get(ctx, bs);
      ComputeOut<C> out(ctx.outputs[0]);
      C* y = out.data();
      ComputeBuffer<C> rs;
      const C* r = s.residual ? as_compute<C>(ctx.inputs[3], rs) : nullptr;
      // Each thread's block of rows: bias, product, activation and residual while the rows are in its cache.
      for_gemm_row_blocks(s.rows, s.n, s.k, [&](int64_t r0, int64_t r1) {
        C* yb = y + r0 * s.n;
        if (bias)
          for (int64_t row = r0; row < r1; ++row) std::copy(bias, bias + s.n, y + row * s.n);
        gemm_serial<C>(false, s.trans_w, r1 - r0, s.n, s.k, C(1), a + r0 * s.k, s.k, w, s.trans_w ? s.k : s.n,
                       bias ? C(1) : C(0), yb, s.n);
        apply_activation(s.activation, yb, (r1 - r0) * s.n);
        if (r) {
          const C* rb = r + r0 * s.n;
          for (int64_t i = 0; i < (r1 - r0) * s.n; ++i) yb[i] += rb[i];
        }
      });
      out.commit();
    });
  });
}

}  // namespace

IE_REGISTER_OPS(linear) {
  OpRegistry::get().add(OpDef("ie", "Linear", infer_linear).with_cost(dot_product_cost));
  OpRegistry::get().add_kernel("ie", "Linear", kernel_set::kCpu, make_linear_cpu);
}

}  // namespace ie
