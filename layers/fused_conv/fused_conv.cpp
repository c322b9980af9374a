// ie.FusedConv: MaxPool(act(Conv(X, W, B))) in one pass per image, as produced by the planner's Conv -> Relu ->
// MaxPool fusion. Attributes: every Conv attribute, `activation` ("" | "Relu"), `pool` ("" | "MaxPool") and the
// pool's window as pool_kernel_shape, pool_strides, pool_pads, pool_ceil_mode, pool_dilations, pool_auto_pad.
// X may be float32 while W is float16 or bfloat16 (the planner folded X's Cast into the node: rule
// conv_input_cast): X is rounded to W's type as it is read, and Y has W's type.
#include "engine/core/dtype_dispatch.h"
#include "engine/registry/op_def.h"
#include "layers/common/conv_core.h"
#include "layers/fused_conv/fused_conv_setup.h"

namespace ie {
namespace {

void infer_fused_conv(InferContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  ctx.expect(is_float(x.dtype), "X must be a float tensor, got ", dtype_name(x.dtype));
  ctx.expect(w.dtype == x.dtype || folded_input_cast(x.dtype, w.dtype), "W is ", dtype_name(w.dtype), " but X is ",
             dtype_name(x.dtype));
  ConvSetup s = resolve_fused_conv(ctx.node(), x, w, ctx.has_input(2) ? &ctx.input(2) : nullptr);
  ctx.set_output(0, w.dtype, s.output_shape());
}

std::unique_ptr<Kernel> make_fused_conv_cpu(const KernelInit& init) {
  if (init.inputs[0].dtype != init.inputs[1].dtype) return init.decline("X and W of one type only");
  const bool has_bias = init.has_input(2);
  ConvSetup s = resolve_fused_conv(init.node, init.inputs[0], init.inputs[1], has_bias ? &init.inputs[2] : nullptr);
  return make_conv_kernel(init, s);
}

OpCost conv_cost(const Node& node, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
  const bool has_bias = in.size() > 2 && in[2].dtype != DType::Undefined;
  return OpCost{conv_flops(resolve_fused_conv(node, in[0], in[1], has_bias ? &in[2] : nullptr)), io_bytes(in, out)};
}

}  // namespace

IE_REGISTER_OPS(fused_conv) {
  OpRegistry::get().add(OpDef("ie", "FusedConv", infer_fused_conv).with_cost(conv_cost));
  OpRegistry::get().add_kernel("ie", "FusedConv", kernel_set::kCpu, make_fused_conv_cpu);
}

}  // namespace ie
