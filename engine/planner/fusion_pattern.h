// Fusion patterns as data. A rule describes the node chain it replaces (ops, optional steps, alternatives,
// per-step checks, a side branch for small DAGs) and how to build the fused node from a match. The helper does
// the rest once for every rule: the shared legality checks on each edge inside the match, and "fuse less when
// the backend refuses" (the match, then shorter forms without its trailing optional steps, largest first).
//
//   const Pattern kConvRelu = {PatternStep("Conv").constant_input(1), "Relu|Tanh", "MaxPool?"};
//   bool try_conv(FusionContext& ctx, size_t index) {
//     return fuse(ctx, index, kConvRelu, "conv_act", [](FusionContext&, const PatternMatch& m) {
//       Node n = make_fused_conv(m.root(), m.has(2));   // the rule's own node building
//       n.outputs = {m.output()};
//       return n;
//     });
//   }
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/planner/fusion.h"

namespace ie {

class PatternMatch;

/// One step of a pattern: the ops a node may be and what else must hold for it.
class PatternStep {
 public:
  /// A rule's own test of a node; `m` holds the steps matched before it (and the context, m.ctx()).
  using Check = std::function<bool(const PatternMatch& m, const Node& node)>;

  /// `spec` lists the accepted ops separated by '|'; a "domain." prefix names a non-default domain; a trailing
  /// '?' makes the step optional (the first step may not be). "Conv", "Relu|Tanh|Sigmoid", "MaxPool?", "ie.Linear".
  PatternStep(const char* spec);  // NOLINT(google-explicit-constructor): patterns read as lists of op names

  /// Adds a check; the node matches only when every check passes.
  ///   PatternStep("Gemm").when([](const PatternMatch&, const Node& n) { return n.attrs.get_int("transA", 0) == 0; })
  PatternStep& when(Check check);
  /// Input `i` of the node, when given, must be known at plan time (an initializer or a folded value).
  ///   PatternStep("Conv").constant_input(1).constant_input(2)   // weight always, bias when present
  PatternStep& constant_input(size_t i);
  /// The previous step's output must be input `i` of this node (by default it may be any input).
  ///   {"Relu", PatternStep("Sub").fed_at(0)}   // relu(x) - c, not c - relu(x)
  PatternStep& fed_at(size_t i);
  /// Makes the match a small DAG: this node's outside input (m.outside_input) must be produced by a node that
  /// matches `side` and is read by this node only. The side node is part of the match (m.beside(step)).
  ///   {"Erf", "Add", PatternStep("Mul").beside("Mul")}   // (1 + erf(.)) * (something * something)
  PatternStep& beside(PatternStep side);

  bool optional() const { return m_optional; }
  /// True when `node` is one of the step's ops in its domain, `fed` (the previous step's output; "" for the first
  /// step) sits where fed_at asks, the constant inputs are constant and every check passes.
  bool accepts(const PatternMatch& m, const Node& node, const std::string& fed) const;
  /// The side step given to beside(), or null.
  const PatternStep* side() const { return m_side.get(); }

 private:
  std::vector<std::pair<std::string, std::string>> m_ops;  // (domain, op_type) alternatives
  bool m_optional = false;
  int m_fed_at = -1;
  std::vector<size_t> m_constant_inputs;
  std::vector<Check> m_checks;
  std::shared_ptr<const PatternStep> m_side;
};

/// The nodes a pattern matched, one per step (absent for a skipped optional step), plus side nodes.
class PatternMatch {
 public:
  PatternMatch(const FusionContext& ctx, size_t steps);

  const FusionContext& ctx() const { return *m_ctx; }
  /// Number of steps in the pattern (present or not).
  size_t size() const { return m_nodes.size(); }
  /// True when step `step` matched a node (false for a skipped optional step, or a step not matched yet).
  bool has(size_t step) const { return step < m_nodes.size() && m_nodes[step] >= 0; }
  /// The node of step `step`; only when has(step).
  const Node& node(size_t step) const { return m_ctx->node(static_cast<size_t>(m_nodes[step])); }
  /// The node of the first step, where the match is rooted.
  const Node& root() const { return node(0); }
  /// The side node of step `step` (see PatternStep::beside), or null.
  const Node* beside(size_t step) const;
  /// The output of the last present step: the tensor the fused node must produce.
  const std::string& output() const;
  /// Graph indices of every matched node (steps and side nodes): what a replacement removes.
  std::vector<size_t> indices() const;
  /// The one input of `node` that no matched node produces, or "" when there is none or more than one: the bias
  /// of MatMul -> Add, the other factor of a Mul in a chain. Optional inputs left out ("") do not count.
  std::string outside_input(const Node& node) const;
  /// True when graph node `index` is one of the matched nodes.
  bool contains(size_t index) const;

 private:
  friend class Pattern;
  const FusionContext* m_ctx;
  std::vector<int> m_nodes;   // graph index per step, -1 where absent
  std::vector<int> m_beside;  // graph index of each step's side node, -1 where none
};

/// A chain of steps, the first one rooted at a given node, each later one fed by the previous present step.
class Pattern {
 public:
  Pattern(std::initializer_list<PatternStep> steps);

  /// The match rooted at node `root`, or nullopt. Beside the steps' own tests, every matched node must be
  /// untaken, have one output and known dtypes and shapes for all its inputs and outputs, and every tensor passed
  /// inside the match must have that one reader and not be a graph output. Optional steps are taken when they
  /// match, and skipped when they do not (or when a later step then fails).
  ///   auto m = Pattern{"MatMul", "Add?"}.match(ctx, i);   // m->has(1): the MatMul's output feeds an Add
  std::optional<PatternMatch> match(const FusionContext& ctx, size_t root) const;
  /// `m` and its shorter forms, largest first: the last present step is dropped while it is optional.
  ///   {"Conv", "Relu", "MaxPool?"} matched in full -> [Conv Relu MaxPool], [Conv Relu]
  std::vector<PatternMatch> shrink(const PatternMatch& m) const;

 private:
  bool try_step(PatternMatch& m, size_t step, size_t index, const std::string& fed) const;
  bool extend(PatternMatch& m, size_t step, const std::string& fed) const;

  std::vector<PatternStep> m_steps;
};

/// A replacement on offer: the graph nodes it removes and the node that takes their place.
struct FusionCandidate {
  std::vector<size_t> nodes;
  Node fused;
};

/// Offers `candidates` (largest first) to ctx.replace in order; true at the first one the backend accepts.
///   replace_first(ctx, {{{conv, relu, pool}, with_pool}, {{conv, relu}, without_pool}}, "conv_relu_pool");
bool replace_first(FusionContext& ctx, std::vector<FusionCandidate> candidates, const std::string& rule);

/// Builds the fused node for a match or one of its shorter forms; its outputs are usually {m.output()}.
using BuildFused = std::function<Node(FusionContext& ctx, const PatternMatch& m)>;

/// The whole of a pattern rule: matches `pattern` at `root`, builds a candidate from the match and from each of
/// its shorter forms (Pattern::shrink) and replaces by the largest one the backend accepts. See the example at
/// the top of this file.
bool fuse(FusionContext& ctx, size_t root, const Pattern& pattern, const std::string& rule, const BuildFused& build);

}  // namespace ie
