// Shape and dtype inference over a graph with bound input shapes, folding every node whose value is known at
// plan time (initializer arithmetic, Shape of a known shape, the legacy exporter's Reshape chains).
#pragma once

#include <map>
#include <string>

#include "engine/ir/graph.h"
#include "engine/registry/op_def.h"

namespace ie {

struct InferenceResult {
  std::map<std::string, TensorInfo> infos;  // every live tensor's type and shape, constants included
  size_t folded_nodes = 0;
};

/// Binds `input_shapes` to the graph inputs (checking them against the declared dims), infers every node and
/// folds the constant ones into g.constants. Throws Error naming the node, op and tensor on any mismatch.
InferenceResult infer_and_fold(Graph& g, const std::map<std::string, Shape>& input_shapes);

/// Checks a given input shape against its declaration; `what` names the tensor. Returns the bound shape.
void check_input_shape(const TensorDecl& decl, const Shape& shape);

}  // namespace ie
