// Runs one node on the CPU on host tensors: used by constant folding and by the op tests.
#pragma once

#include <vector>

#include "engine/registry/op_def.h"

namespace ie {

/// Shape inference for one node given its inputs (absent optional inputs: empty Tensor). Constant inputs are
/// visible to inference as values.
InferContext infer_node(const Node& node, const std::vector<TensorInfo>& infos,
                        const std::vector<const Tensor*>& constants, int64_t opset);

/// Infers and runs `node` on the CPU backend; every input is treated as a known value.
std::vector<Tensor> run_node_cpu(const Node& node, const std::vector<Tensor>& inputs, int64_t opset = 20);

/// Builds a node for tests: make_node("Conv", {"x","w"}, {"y"}).
Node make_node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
               Attributes attrs = {}, const std::string& domain = "");

}  // namespace ie
