// Conv -> Relu (-> MaxPool) -> ie.FusedConv: the activation and the pooling run in the conv's epilogue, so the
// full-resolution activation map never goes through memory.
#include "engine/planner/fusion.h"

namespace ie {
namespace {

bool try_conv(FusionContext& ctx, size_t index) {
  const Node& conv = ctx.node(index);
  if (conv.op_type != "Conv" || !conv.domain.empty()) return false;
  const TensorInfo* x = ctx.info(conv.inputs[0]);
  if (!x || x->shape.size() != 4 || !ctx.constant(conv.inputs[1])) return false;
  if (conv.inputs.size() > 2 && !conv.inputs[2].empty() && !ctx.constant(conv.inputs[2])) return false;
  int relu_index = ctx.sole_consumer(conv.outputs[0]);
  if (relu_index < 0) return false;
  const Node& relu = ctx.node(relu_index);
  if (relu.op_type != "Relu" || !relu.domain.empty()) return false;
  Node fused;
  fused.name = conv.name + "/fused";
  fused.domain = "ie";
  fused.op_type = "FusedConv";
  fused.inputs = conv.inputs;
  fused.attrs = conv.attrs;
  fused.attrs.set_string("activation", "Relu");
  fused.attrs.set_string("pool", "");
  std::vector<size_t> matched = {index, static_cast<size_t>(relu_index)};
  std::string y = relu.outputs[0];
  int pool_index = ctx.sole_consumer(relu.outputs[0]);
  if (pool_index >= 0) {
    const Node& pool = ctx.node(pool_index);
    bool plain = pool.op_type == "MaxPool" && pool.domain.empty() &&
                 (pool.outputs.size() == 1 || pool.outputs[1].empty()) &&
                 pool.attrs.get_string("auto_pad", "NOTSET") == "NOTSET" && pool.attrs.get_int("storage_order", 0) == 0;
    if (plain) {
      fused.attrs.set_string("pool", "MaxPool");
      fused.attrs.set_ints("pool_kernel_shape", pool.attrs.get_ints("kernel_shape"));
      fused.attrs.set_ints("pool_strides", pool.attrs.get_ints("strides", {1, 1}));
      fused.attrs.set_ints("pool_pads", pool.attrs.get_ints("pads", {0, 0, 0, 0}));
      fused.attrs.set_ints("pool_dilations", pool.attrs.get_ints("dilations", {1, 1}));
      fused.attrs.set_int("pool_ceil_mode", pool.attrs.get_int("ceil_mode", 0));
      matched.push_back(pool_index);
      y = pool.outputs[0];
    }
  }
  fused.outputs = {y};
  if (ctx.replace(matched, fused, "conv_relu_pool")) return true;
  if (matched.size() < 3) return false;
  // The backend cannot pool in the conv's epilogue: fuse conv + activation only.
  matched.pop_back();
  fused.attrs.set_string("pool", "");
  fused.outputs = {relu.outputs[0]};
  return ctx.replace(matched, std::move(fused), "conv_relu_pool");
}

}  // namespace

IE_REGISTER_FUSION(conv_relu_pool) { return FusionRule{"conv_relu_pool", 40, try_conv}; }

}  // namespace ie
