// Fusion as data: a table of rewrite rules applied to the IR before lowering. Each rule lives beside the op it
// produces (layers/<op>/<op>_fusion.cpp), describes the nodes it replaces with fusion_pattern.h and registers
// itself with IE_REGISTER_FUSION; adding a rule touches that one file.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/ir/graph.h"
#include "engine/registry/op_def.h"

namespace ie {

/// What a rule sees: the graph, every tensor's type and shape, and who reads what.
class FusionContext {
 public:
  using Accept = std::function<bool(const Node&)>;
  FusionContext(Graph& g, std::map<std::string, TensorInfo>& infos, Accept accept = nullptr);

  Graph& graph() { return m_graph; }
  std::map<std::string, TensorInfo>& infos() { return m_infos; }
  const TensorInfo* info(const std::string& tensor) const;
  const Tensor* constant(const std::string& tensor) const;
  /// Indices of the nodes that read `tensor`.
  std::vector<size_t> consumers(const std::string& tensor) const;
  /// The one node that reads `tensor` when the shared legality check allows fusing through it: exactly one
  /// reader and not a graph output. Returns -1 otherwise.
  int sole_consumer(const std::string& tensor) const;
  /// True when node `index` is already part of a pending replacement.
  bool is_taken(size_t index) const { return m_removed.count(index) != 0; }
  /// Node `index` of the graph.
  const Node& node(size_t index) const { return m_graph.nodes[index]; }
  /// Adds a constant tensor under a fresh name derived from `hint`; returns the name.
  std::string add_constant(const std::string& hint, Tensor value);
  /// Producer node index of `tensor`, or -1.
  int producer(const std::string& tensor) const;
  /// Constant scalar value of `tensor` (any float or int dtype, one element), if it is one.
  bool scalar_value(const std::string& tensor, double& value) const;

  /// Replaces the nodes `matched` (indices) by `fused`; `fused.covers` is filled from their names. Does nothing
  /// (and returns false) when the backend cannot run the fused node, so the nodes stay unfused.
  bool replace(const std::vector<size_t>& matched, Node fused, const std::string& rule);
  /// Applies the pending replacements; returns how many were made.
  size_t commit();

 private:
  Graph& m_graph;
  std::map<std::string, TensorInfo>& m_infos;
  std::map<std::string, std::vector<size_t>> m_consumers;
  std::map<std::string, size_t> m_producers;
  std::set<size_t> m_removed;
  std::map<size_t, Node> m_inserted;  // keyed by the position of the last matched node
  Accept m_accept;
};

struct FusionRule {
  std::string name;         // used to switch it off: Options::disabled_fusions, IE_DISABLE_FUSIONS
  int order = 100;          // lower runs first (e.g. GELU recognition before linear+activation)
  // Tries to match a pattern rooted at node `index`; on success calls ctx.replace(...) and returns true.
  std::function<bool(FusionContext& ctx, size_t index)> try_match;
  // Runs after the precision pass (on the graph with its Casts and weights in the storage type) instead of
  // before it: for rules that take whole chains, Casts included.
  bool after_precision = false;
};

std::vector<FusionRule>& fusion_rules();

struct FusionReport {
  std::map<std::string, int> applied;  // rule name -> times
};

/// Runs every enabled rule of the stage (before the precision pass, or after it) to a fixed point. `disabled` names
/// rules to skip ("all" disables every rule). `accept` (may be null) says whether the chosen backend can run a
/// fused node.
FusionReport apply_fusions(Graph& g, std::map<std::string, TensorInfo>& infos, const std::set<std::string>& disabled,
                           const FusionContext::Accept& accept = nullptr, bool after_precision = false);

/// Names of every registered rule, in the order they run.
std::vector<std::string> fusion_rule_names();

}  // namespace ie

#define IE_REGISTER_FUSION(tag)                                                                   \
  static ::ie::FusionRule IE_CONCAT(ie_fusion_rule_, tag)();                                      \
  [[maybe_unused]] static const bool IE_CONCAT(ie_fusion_registered_, tag) =                      \
      (::ie::fusion_rules().push_back(IE_CONCAT(ie_fusion_rule_, tag)()), true);                  \
  static ::ie::FusionRule IE_CONCAT(ie_fusion_rule_, tag)()
