// The layer graph (IR): nodes in topological order, named values, constant tensors.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/api/engine.h"
#include "engine/ir/attributes.h"

namespace ie {

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;                 // "" is ONNX's default domain; "ie" holds the engine's fused ops
  std::vector<std::string> inputs;    // "" marks an absent optional input
  std::vector<std::string> outputs;
  Attributes attrs;
  std::vector<std::string> covers;    // original ONNX nodes this node replaced (fused nodes)
  std::string fusion;                 // name of the rule that made it, if fused
  std::vector<Node> replaced;         // a fused node's original nodes, in graph order: lowered in its place when
                                      // no kernel set runs the fused node

  /// "node 'Conv_3' (Conv)" for error messages.
  std::string label() const;
};

class Graph {
 public:
  std::vector<Node> nodes;                    // topologically sorted after load
  std::map<std::string, Tensor> constants;    // initializers and folded values
  std::vector<TensorDecl> inputs;             // graph inputs that are not initializers
  std::vector<TensorDecl> outputs;
  int64_t opset = 0;                          // default-domain opset version
  std::string source;                         // file the graph came from (for messages)

  bool is_constant(const std::string& name) const { return constants.count(name) != 0; }
  bool is_graph_output(const std::string& name) const;
  bool is_graph_input(const std::string& name) const;
  /// Number of nodes that read `name` (graph outputs count as one more reader).
  std::map<std::string, int> consumer_counts() const;
  /// Index of the node that produces `name`, or -1.
  int producer_of(const std::string& name) const;
  /// Orders nodes so that every input is produced before use; throws on a cycle or an undefined input.
  void topological_sort();
  /// Removes nodes whose outputs reach no graph output; returns how many were removed.
  size_t remove_dead_nodes();
  /// A tensor name not used yet, starting with `hint`.
  std::string unique_name(const std::string& hint) const;
};

}  // namespace ie
