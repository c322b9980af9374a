// ie.FusedConv on "cuda-reference": conv + bias + Relu in one cuDNN call (layers/conv/conv_cuda_ref.cu). cuDNN has no
// pooling epilogue, so a FusedConv with a pool is rejected here and the planner fuses conv + Relu only, leaving
// the MaxPool as its own step.
#include "engine/registry/op_def.h"
#include "layers/conv/conv_cudnn.h"
#include "layers/fused_conv/fused_conv_setup.h"

namespace ie {
namespace {

bool fused_conv_cuda_supports(const Node& node) {
  const std::string act = node.attrs.get_string("activation", "");
  return node.attrs.get_string("pool", "").empty() && (act.empty() || act == "None" || act == "Relu");
}

std::unique_ptr<Kernel> make_fused_conv_cuda(const KernelInit& init) {
  if (init.inputs[0].dtype != init.inputs[1].dtype) return init.decline("X and W of one type only");
  const bool has_bias = init.has_input(2);
  ConvSetup s = resolve_fused_conv(init.node, init.inputs[0], init.inputs[1], has_bias ? &init.inputs[2] : nullptr);
  return make_cudnn_conv(init, s);
}

}  // namespace

IE_REGISTER_OPS(fused_conv_cuda) {
  OpRegistry::get().add_kernel("ie", "FusedConv", kernel_set::kCudaReference, make_fused_conv_cuda,
                               fused_conv_cuda_supports);
}

}  // namespace ie
