// Split: one input cut into consecutive pieces along an axis. Piece sizes come from the 'split' attribute (before
// opset 13), the 'split' input (opset 13 on), or equal parts (opset 18 allows an uneven, smaller last piece).
#include "engine/core/checked_math.h"
#include "engine/registry/op_def.h"
#include "layers/common/axes.h"
#include "layers/common/init_context.h"
#include "layers/common/strided_copy.h"
#include "layers/concat/concat_setup.h"

namespace ie {

SplitPlan plan_split(const InferContext& ctx) {
  const TensorInfo& in = ctx.input(0);
  SplitPlan p;
  p.axis = axis_attr(ctx.node(), in.shape.size());
  const int64_t dim = in.shape[p.axis];
  const int64_t n = static_cast<int64_t>(ctx.node().outputs.size());
  if (ctx.opset() < 13 && ctx.attrs().has("split")) {
    p.sizes = ctx.attrs().get_ints("split");
  } else if (ctx.opset() >= 13 && ctx.has_input(1)) {
    p.sizes = ctx.constant_ints(1, "split");
  } else {
    const int64_t parts = ctx.attrs().get_int("num_outputs", n);
    ctx.expect(parts == n && n > 0, "num_outputs is ", parts, " but the node has ", n, " outputs");
    const int64_t chunk = dim / n + (dim % n != 0);  // ceil without dim + n overflowing
    ctx.expect(dim % n == 0 || ctx.opset() >= 18, "axis ", p.axis, " of size ", dim, " does not split into ", n,
               " equal parts");
    for (int64_t i = 0, left = dim; i < n; ++i, left -= chunk)
      p.sizes.push_back(std::max<int64_t>(0, std::min(chunk, left)));
  }
  ctx.expect(static_cast<int64_t>(p.sizes.size()) == n, "split ", shape_to_string(p.sizes), " has ", p.sizes.size(),
             " entries for ", n, " outputs");
  int64_t total = 0;
  for (int64_t s : p.sizes) {
    ctx.expect(s >= 0, "split ", shape_to_string(p.sizes), " has a negative size");
    total = checked_add(total, s, ctx.node().label() + ": sum of split sizes");
  }
  ctx.expect(total == dim, "split ", shape_to_string(p.sizes), " sums to ", total, ", but axis ", p.axis, " has size ",
             dim);
  return p;
}

namespace {

void infer_split(InferContext& ctx) {
  SplitPlan p = plan_split(ctx);
  for (size_t i = 0; i < p.sizes.size(); ++i) {
    Shape s = ctx.input(0).shape;
    s[p.axis] = p.sizes[i];
    ctx.set_output(i, ctx.input(0).dtype, s);
  }
}

std::unique_ptr<Kernel> make_split_cpu(const KernelInit& init) {
  SplitPlan p = plan_split(InitContext(init).ctx);
  return make_kernel([p](KernelContext& ctx) {
    const TensorRef& in = ctx.inputs[0];
    const size_t elem = dtype_size(in.dtype);
    const std::vector<int64_t> in_strides = strides_of(in.shape);
    int64_t offset = 0;
    for (size_t i = 0; i < p.sizes.size(); ++i) {
      const TensorRef& out = ctx.outputs[i];
      if (out.present()) {
        const char* src = static_cast<const char*>(in.data) + offset * in_strides[p.axis] * elem;
        strided_copy(elem, out.shape, out.data, strides_of(out.shape), src, in_strides);
      }
      offset += p.sizes[i];
    }
  });
}

}  // namespace

IE_REGISTER_OPS(split) {
  OpRegistry::get().add(OpDef("", "Split", infer_split));
  OpRegistry::get().add_kernel("", "Split", kernel_set::kCpu, make_split_cpu);
}

}  // namespace ie
