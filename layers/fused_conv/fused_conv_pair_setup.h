// ie.FusedConvPair (rule conv_pair): two ie.FusedConv nodes, the second reading the first one's output, as one
// step. Inputs X, W1, B1 (or ""), W2, B2 (or ""); the two nodes are its `replaced`, and their attributes are the
// pair's (a backend without the pair's kernel, or a shape it declines, runs them as they were).
#pragma once

#include <vector>

#include "engine/registry/op_def.h"
#include "layers/fused_conv/fused_conv_setup.h"

namespace ie {

/// Where the pair's weights and biases are among its inputs (-1: an absent bias).
struct PairInputs {
  int w1 = 1, b1 = -1, w2 = 3, b2 = -1;
};

inline PairInputs pair_inputs(const std::vector<TensorInfo>& in) {
  PairInputs p;
  if (in.size() > 2 && in[2].dtype != DType::Undefined) p.b1 = 2;
  if (in.size() > 4 && in[4].dtype != DType::Undefined) p.b2 = 4;
  return p;
}

/// The two convolutions' setups: the first from X, the second from the first one's output (the map).
struct PairSetup {
  ConvSetup first, second;
  TensorInfo map;
};

inline PairSetup resolve_pair(const Node& node, const std::vector<TensorInfo>& in) {
  if (node.replaced.size() != 2 || node.replaced[0].op_type != "FusedConv" || node.replaced[1].op_type != "FusedConv")
    fail_input(node.label(), ": expects the two ie.FusedConv nodes it replaced");
  if (in.size() < 4) fail_input(node.label(), ": expects inputs X, W1, B1, W2 and B2");
  const PairInputs p = pair_inputs(in);
  PairSetup s;
  s.first = resolve_fused_conv(node.replaced[0], in[0], in[p.w1], p.b1 >= 0 ? &in[p.b1] : nullptr);
  s.map = TensorInfo{in[p.w1].dtype, s.first.output_shape()};
  s.second = resolve_fused_conv(node.replaced[1], s.map, in[p.w2], p.b2 >= 0 ? &in[p.b2] : nullptr);
  return s;
}

}  // namespace ie
