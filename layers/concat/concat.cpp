// Concat: inputs side by side along one axis; each input is one strided box copy into the output.
#include "engine/core/checked_math.h"
#include "engine/registry/op_def.h"
#include "layers/common/axes.h"
#include "layers/common/strided_copy.h"
#include "layers/concat/concat_setup.h"

namespace ie {

int64_t concat_axis(const Node& node, int64_t opset, int64_t rank) {
  if (opset >= 4 && !node.attrs.has("axis")) fail_input(node.label(), ": attribute 'axis' is required");
  return axis_attr(node, static_cast<size_t>(rank), 1);
}

namespace {

void infer_concat(InferContext& ctx) {
  ctx.expect(ctx.num_inputs() >= 1, "needs at least one input");
  const TensorInfo& first = ctx.input(0);
  const int64_t rank = static_cast<int64_t>(first.shape.size());
  ctx.expect(rank > 0, "cannot concatenate scalars");
  const int64_t axis = concat_axis(ctx.node(), ctx.opset(), rank);
  Shape out = first.shape;
  out[axis] = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const TensorInfo& in = ctx.input(i);
    ctx.expect(in.dtype == first.dtype, "input ", i, " '", ctx.node().inputs[i], "' is ", dtype_name(in.dtype),
               ", input 0 is ", dtype_name(first.dtype));
    bool fits = in.shape.size() == first.shape.size();
    for (int64_t k = 0; fits && k < rank; ++k) fits = k == axis || in.shape[k] == first.shape[k];
    ctx.expect(fits, "input ", i, " '", ctx.node().inputs[i], "' has shape ", shape_to_string(in.shape),
               ", which does not match input 0's ", shape_to_string(first.shape), " outside axis ", axis);
    out[axis] = checked_add(out[axis], in.shape[axis], ctx.node().label() + ": concatenated axis");
  }
  ctx.set_output(0, first.dtype, out);
}

std::unique_ptr<Kernel> make_concat_cpu(const KernelInit& init) {
  const int64_t axis = concat_axis(init.node, init.opset, static_cast<int64_t>(init.outputs[0].shape.size()));
  return make_kernel([axis](KernelContext& ctx) {
    const TensorRef& out = ctx.outputs[0];
    const size_t elem = dtype_size(out.dtype);
    const std::vector<int64_t> out_strides = strides_of(out.shape);
    int64_t offset = 0;
    for (const TensorRef& in : ctx.inputs) {
      char* dst = static_cast<char*>(out.data) + offset * out_strides[axis] * elem;
      strided_copy(elem, in.shape, dst, out_strides, in.data, strides_of(in.shape));
      offset += in.shape[axis];
    }
  });
}

}  // namespace

IE_REGISTER_OPS(concat) {
  OpRegistry::get().add(OpDef("", "Concat", infer_concat));
  OpRegistry::get().add_kernel("", "Concat", kernel_set::kCpu, make_concat_cpu);
}

}  // namespace ie
