// ie.SampleResident: a chain of steps that each act on every sample on its own, run by one persistent kernel
// (sample_resident.cuh) that keeps a tile of samples on chip from the chain's input to its outputs.
//
// The planner's rule `sample_resident` (sample_resident.cpp) runs after the precision pass: it takes the longest
// runs of consecutive nodes of the kinds the kernel has (ie.Linear with its epilogues, LayerNormalization and
// ie.LayerNorm, ie.Attention with its q/k/v projection and RoPE, Softmax over the last axis, reshapes and float casts
// as views) whose tensors all keep the batch as dimension 0, and replaces each run by one node. Its inputs are the
// run's activations read from outside, then every constant it reads; its outputs the tensors read after it. The parts
// stay in the node (Node::replaced): the kernel compiles them into its program at plan time, and they run one by one
// where the kernel declines (the reason is in `inspect`).
#pragma once

#include <string>
#include <vector>

#include "engine/registry/op_def.h"
#include "layers/sample_resident/sample_resident_builder.h"

namespace ie {

/// The chain spec of an ie.SampleResident node for inputs of these types and constants (the node's inputs, in
/// order); with `values` false the weights are left out (cost and checks only). False with the reason when a part
/// does not fit the kernel.
bool sample_resident_spec(const Node& node, const std::vector<TensorInfo>& inputs,
                          const std::vector<const Tensor*>& constants, int64_t opset, bool values, sr::ChainSpec* spec,
                          std::string* why);

}  // namespace ie
