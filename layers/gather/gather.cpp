// Gather: whole slices of the input picked along one axis by an index tensor (int32 or int64, negative counts from
// the back). Indices are checked before the copy loop, which then moves raw bytes.
#include <cstring>

#include "engine/core/dtype_dispatch.h"
#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/axes.h"
#include "layers/common/indices.h"

namespace ie {
namespace {

void infer_gather(InferContext& ctx) {
  const TensorInfo& data = ctx.input(0);
  const TensorInfo& indices = ctx.input(1);
  expect_index_input(ctx, 1);
  ctx.expect(!data.shape.empty(), "cannot gather from a scalar");
  const int64_t axis = axis_attr(ctx.node(), data.shape.size());
  Shape out(data.shape.begin(), data.shape.begin() + axis);
  out.insert(out.end(), indices.shape.begin(), indices.shape.end());
  out.insert(out.end(), data.shape.begin() + axis + 1, data.shape.end());
  ctx.set_output(0, data.dtype, out);
}

std::unique_ptr<Kernel> make_gather_cpu(const KernelInit& init) {
  const int64_t axis = axis_attr(init.node, init.inputs[0].shape.size());
  std::string where = init.node.label();
  return make_kernel([axis, where](KernelContext& ctx) {
    const TensorRef& data = ctx.inputs[0];
    const int64_t dim = data.shape[axis];
    std::vector<int64_t> idx = checked_indices(ctx.inputs[1], dim, where);
    const int64_t outer = numel_range(data.shape, 0, axis);
    const int64_t inner = numel_range(data.shape, axis + 1, data.shape.size());
    const int64_t n = static_cast<int64_t>(idx.size());
    dispatch_by_size(data.dtype, where.c_str(), [&](auto tag) {
      using U = typename decltype(tag)::type;
      const U* src = data.as<U>();
      U* dst = ctx.outputs[0].as<U>();
      parallel_for(outer * n, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const U* from = src + ((t / n) * dim + idx[t % n]) * inner;
          if (inner == 1)
            dst[t] = *from;
          else
            std::memcpy(dst + t * inner, from, static_cast<size_t>(inner) * sizeof(U));
        }
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(gather) {
  OpRegistry::get().add(OpDef("", "Gather", infer_gather));
  OpRegistry::get().add_kernel("", "Gather", kernel_set::kCpu, make_gather_cpu);
}

}  // namespace ie
