// MatMul (ONNX): numpy matmul with broadcast batch dims and 1-D operands.
#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/compute_type.h"
#include "layers/common/gemm.h"
#include "layers/matmul/matmul_setup.h"

namespace ie {
namespace {

void infer_matmul(InferContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(1);
  ctx.expect(is_float(a.dtype), "A must be a float tensor, got ", dtype_name(a.dtype));
  ctx.expect(b.dtype == a.dtype, "B is ", dtype_name(b.dtype), " but A is ", dtype_name(a.dtype));
  ctx.set_output(0, a.dtype, resolve_matmul(ctx.node(), a.shape, b.shape).out);
}

std::unique_ptr<Kernel> make_matmul_cpu(const KernelInit& init) {
  if (!is_float(init.inputs[0].dtype)) return nullptr;
  auto s = std::make_shared<MatMulSetup>(resolve_matmul(init.node, init.inputs[0].shape, init.inputs[1].shape));
  return dispatch_float(init.inputs[0].dtype, "MatMul", [&](auto tag) -> std::unique_ptr<Kernel> {
    using C = ComputeOf<typename decltype(tag)::type>;
    WeightInput<C> b_in(init, 1);
    return make_kernel([s, b_in](KernelContext& ctx) {
      ComputeBuffer<C> as, bs;
      const C* a = as_compute<C>(ctx.inputs[0], as);
      const C* b = b_in.get(ctx, bs);
      ComputeOut<C> out(ctx.outputs[0]);
      C* y = out.data();
      const int64_t m = s->m, n = s->n, k = s->k, batches = static_cast<int64_t>(s->a_offset.size());
      bool b_shared = true, a_contiguous = true;
      for (int64_t i = 0; i < batches; ++i) {
        b_shared = b_shared && s->b_offset[i] == 0;
        a_contiguous = a_contiguous && s->a_offset[i] == i;
      }
      if (b_shared && a_contiguous) {
        // One weight matrix for every batch: a single tall product.
        gemm<C>(false, false, batches * m, n, k, C(1), a, k, b, n, C(0), y, n);
      } else {
        // Many small products run one per thread; large ones let Eigen use the threads.
        const int64_t grain = m * n * k >= 64 * 64 * 64 ? batches : 1;
        parallel_for(batches, grain, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            gemm<C>(false, false, m, n, k, C(1), a + s->a_offset[i] * m * k, k, b + s->b_offset[i] * k * n, n,
                    C(0), y + i * m * n, n);
        });
      }
      out.commit();
    });
  });
}

}  // namespace

IE_REGISTER_OPS(matmul) {
  OpRegistry::get().add(OpDef("", "MatMul", infer_matmul).with_cost(dot_product_cost));
  OpRegistry::get().add_kernel("", "MatMul", kernel_set::kCpu, make_matmul_cpu);
}

}  // namespace ie
