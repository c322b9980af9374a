// GatherElements: out[i..] = data[i.. with index[i..] in place of the axis coordinate]; output shape = indices'.
#include "engine/core/dtype_dispatch.h"
#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/axes.h"
#include "layers/common/indices.h"

namespace ie {
namespace {

void infer_gather_elements(InferContext& ctx) {
  const TensorInfo& data = ctx.input(0);
  const TensorInfo& indices = ctx.input(1);
  expect_index_input(ctx, 1);
  ctx.expect(!data.shape.empty() && indices.shape.size() == data.shape.size(), "indices ",
             shape_to_string(indices.shape), " must have the rank of data ", shape_to_string(data.shape));
  const int64_t axis = axis_attr(ctx.node(), data.shape.size());
  for (size_t k = 0; k < data.shape.size(); ++k)
    ctx.expect(static_cast<int64_t>(k) == axis || indices.shape[k] <= data.shape[k], "indices ",
               shape_to_string(indices.shape), " exceed data ", shape_to_string(data.shape), " in dim ", k);
  ctx.set_output(0, data.dtype, indices.shape);
}

std::unique_ptr<Kernel> make_gather_elements_cpu(const KernelInit& init) {
  const int64_t axis = axis_attr(init.node, init.inputs[0].shape.size());
  std::string where = init.node.label();
  return make_kernel([axis, where](KernelContext& ctx) {
    const TensorRef& data = ctx.inputs[0];
    const Shape& shape = ctx.inputs[1].shape;
    std::vector<int64_t> idx = checked_indices(ctx.inputs[1], data.shape[axis], where);
    const std::vector<int64_t> ds = strides_of(data.shape);
    const int rank = static_cast<int>(shape.size());
    dispatch_by_size(data.dtype, where.c_str(), [&](auto tag) {
      using U = typename decltype(tag)::type;
      const U* src = data.as<U>();
      U* dst = ctx.outputs[0].as<U>();
      parallel_for(static_cast<int64_t>(idx.size()), 16384, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          int64_t rem = t, off = 0;
          for (int k = rank - 1; k >= 0; --k) {
            const int64_t i = rem % shape[k];
            rem /= shape[k];
            off += (k == axis ? idx[t] : i) * ds[k];
          }
          dst[t] = src[off];
        }
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(gather_elements) {
  OpRegistry::get().add(OpDef("", "GatherElements", infer_gather_elements));
  OpRegistry::get().add_kernel("", "GatherElements", kernel_set::kCpu, make_gather_elements_cpu);
}

}  // namespace ie
