// MatMul (ONNX): numpy matmul with broadcast batch dims and 1-D operands.
#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/compute_type.h"
#include "layers/common/gemm.h"

namespace ie {
namespace {

struct MatMulSetup {
  int64_t m = 0, n = 0, k = 0;
  Shape batch;                       // broadcast batch dims of the output
  std::vector<int64_t> a_offset, b_offset;  // per output batch index: matrix index into A and B
  Shape out;
};

MatMulSetup resolve_matmul(const Node& node, Shape a, Shape b) {
  if (a.empty() || b.empty())
    fail_input(node.label(), ": MatMul operands must have rank >= 1, got ", shape_to_string(a), " and ",
               shape_to_string(b));
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  MatMulSetup s;
  s.m = a[a.size() - 2];
  s.k = a.back();
  s.n = b.back();
  if (b[b.size() - 2] != s.k)
    fail_input(node.label(), ": inner dims differ: A ", shape_to_string(a), " has K = ", s.k, ", B ",
               shape_to_string(b), " has K = ", b[b.size() - 2]);
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  s.batch = broadcast_shapes(ab, bb, node.label() + " batch dims");
  s.out = s.batch;
  if (!a_vec) s.out.push_back(s.m);
  if (!b_vec) s.out.push_back(s.n);
  // Map each output batch index onto the (possibly broadcast) matrix indices of A and B.
  const size_t r = s.batch.size();
  ab.insert(ab.begin(), r - ab.size(), 1);
  bb.insert(bb.begin(), r - bb.size(), 1);
  const auto sa = strides_of(ab), sb = strides_of(bb);
  const int64_t total = numel_range(s.batch, 0, r);
  for (int64_t i = 0; i < total; ++i) {
    int64_t rem = i, oa = 0, ob = 0;
    for (size_t d = r; d-- > 0;) {
      const int64_t idx = rem % s.batch[d];
      rem /= s.batch[d];
      if (ab[d] != 1) oa += idx * sa[d];
      if (bb[d] != 1) ob += idx * sb[d];
    }
    s.a_offset.push_back(oa);
    s.b_offset.push_back(ob);
  }
  return s;
}

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
      std::vector<C> as, bs;
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
  OpRegistry::get().add({"", "MatMul", infer_matmul, true, -1, dot_product_cost});
  OpRegistry::get().add_kernel("", "MatMul", "cpu", make_matmul_cpu);
}

}  // namespace ie
