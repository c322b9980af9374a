// ie.FusedConvPair's record: its output type and shape, and its cost (the two convolutions'). Only the fused set
// "cuda" runs it (fused_conv_pair_cuda.cu); the planner forms it only for a backend that does.
#include "engine/registry/op_def.h"
#include "layers/fused_conv/fused_conv_pair_setup.h"

namespace ie {
namespace {

void infer_fused_conv_pair(InferContext& ctx) {
  std::vector<TensorInfo> in;
  for (size_t i = 0; i < ctx.node().inputs.size(); ++i) in.push_back(ctx.has_input(i) ? ctx.input(i) : TensorInfo{});
  const PairSetup s = resolve_pair(ctx.node(), in);
  ctx.set_output(0, in[pair_inputs(in).w2].dtype, s.second.output_shape());
}

OpCost pair_cost(const Node& node, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
  const PairSetup s = resolve_pair(node, in);
  return OpCost{conv_flops(s.first) + conv_flops(s.second), io_bytes(in, out)};
}

}  // namespace

IE_REGISTER_OPS(fused_conv_pair) {
  OpRegistry::get().add(OpDef("ie", "FusedConvPair", infer_fused_conv_pair).with_cost(pair_cost));
}

}  // namespace ie
