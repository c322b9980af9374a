// Conv (ONNX): N-d convolution over 1 to 3 spatial dims with group, pads, strides, dilations, auto_pad and bias.
#include "engine/core/dtype_dispatch.h"
#include "engine/registry/op_def.h"
#include "layers/common/conv_core.h"

namespace ie {
namespace {

ConvSetup setup_of(const Node& node, const TensorInfo& x, const TensorInfo& w, const TensorInfo* b) {
  return resolve_conv(node.attrs, x.shape, w.shape, b ? &b->shape : nullptr, node.label());
}

void infer_conv(InferContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  ctx.expect(is_float(x.dtype), "X must be a float tensor, got ", dtype_name(x.dtype));
  ctx.expect(w.dtype == x.dtype, "W is ", dtype_name(w.dtype), " but X is ", dtype_name(x.dtype));
  ConvSetup s = setup_of(ctx.node(), x, w, ctx.has_input(2) ? &ctx.input(2) : nullptr);
  ctx.set_output(0, x.dtype, s.output_shape());
}

std::unique_ptr<Kernel> make_conv_cpu(const KernelInit& init) {
  const bool has_bias = init.has_input(2);
  ConvSetup s = setup_of(init.node, init.inputs[0], init.inputs[1], has_bias ? &init.inputs[2] : nullptr);
  return make_conv_kernel(init, s);
}

OpCost conv_cost(const Node& node, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
  const bool has_bias = in.size() > 2 && in[2].dtype != DType::Undefined;
  return OpCost{conv_flops(setup_of(node, in[0], in[1], has_bias ? &in[2] : nullptr)), io_bytes(in, out)};
}

}  // namespace

IE_REGISTER_OPS(conv) {
  OpRegistry::get().add(OpDef("", "Conv", infer_conv).with_cost(conv_cost));
  OpRegistry::get().add_kernel("", "Conv", kernel_set::kCpu, make_conv_cpu);
}

}  // namespace ie
