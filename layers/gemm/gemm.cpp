// Gemm (ONNX): Y = alpha * op(A) op(B) + beta * C, with C unidirectionally broadcast to [M, N].
#include "engine/registry/op_def.h"
#include "layers/common/compute_type.h"
#include "layers/common/gemm.h"
#include "layers/gemm/gemm_setup.h"

namespace ie {
namespace {

void infer_gemm(InferContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(1);
  ctx.expect(is_float(a.dtype), "A must be a float tensor, got ", dtype_name(a.dtype));
  ctx.expect(b.dtype == a.dtype, "B is ", dtype_name(b.dtype), " but A is ", dtype_name(a.dtype));
  if (ctx.has_input(2))
    ctx.expect(ctx.input(2).dtype == a.dtype, "C is ", dtype_name(ctx.input(2).dtype), " but A is ",
               dtype_name(a.dtype));
  GemmSetup s = resolve_gemm(ctx.node(), a.shape, b.shape, ctx.has_input(2) ? &ctx.input(2).shape : nullptr);
  ctx.set_output(0, a.dtype, {s.m, s.n});
}

std::unique_ptr<Kernel> make_gemm_cpu(const KernelInit& init) {
  const bool has_c = init.has_input(2);
  GemmSetup s = resolve_gemm(init.node, init.inputs[0].shape, init.inputs[1].shape,
                             has_c ? &init.inputs[2].shape : nullptr);
  if (!is_float(init.inputs[0].dtype)) return nullptr;
  return dispatch_float(init.inputs[0].dtype, "Gemm", [&](auto tag) -> std::unique_ptr<Kernel> {
    using C = ComputeOf<typename decltype(tag)::type>;
    WeightInput<C> b_in(init, 1), c_in(init, 2);
    return make_kernel([s, b_in, c_in](KernelContext& ctx) {
      ComputeBuffer<C> as, bs, cs;
      const C* a = as_compute<C>(ctx.inputs[0], as);
      const C* b = b_in.get(ctx, bs);
      const C* c = s.beta != 0 ? c_in.get(ctx, cs) : nullptr;
      ComputeOut<C> out(ctx.outputs[0]);
      C* y = out.data();
      // Each thread's block of rows: the scaled C, then the product on top of it.
      for_gemm_row_blocks(s.m, s.n, s.k, [&](int64_t r0, int64_t r1) {
        if (c)
          for (int64_t i = r0; i < r1; ++i)
            for (int64_t j = 0; j < s.n; ++j)
              y[i * s.n + j] = C(s.beta) * c[(s.c_rows == 1 ? 0 : i) * s.c_cols + (s.c_cols == 1 ? 0 : j)];
        const C* a_rows = s.trans_a ? a + r0 : a + r0 * s.k;  // trans_a: A is stored [k, m]
        gemm_serial<C>(s.trans_a, s.trans_b, r1 - r0, s.n, s.k, C(s.alpha), a_rows, s.trans_a ? s.m : s.k, b,
                       s.trans_b ? s.k : s.n, c ? C(1) : C(0), y + r0 * s.n, s.n);
      });
      out.commit();
    });
  });
}

// 2 * M * N * K for op(A) op(B); the scaled C adds one per output element.
OpCost gemm_cost(const Node& node, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
  const bool has_c = in.size() > 2 && in[2].dtype != DType::Undefined;
  GemmSetup s = resolve_gemm(node, in[0].shape, in[1].shape, has_c ? &in[2].shape : nullptr);
  return OpCost{2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k),
                io_bytes(in, out)};
}

}  // namespace

IE_REGISTER_OPS(gemm) {
  OpRegistry::get().add(OpDef("", "Gemm", infer_gemm).with_cost(gemm_cost));
  OpRegistry::get().add_kernel("", "Gemm", kernel_set::kCpu, make_gemm_cpu);
}

}  // namespace ie
