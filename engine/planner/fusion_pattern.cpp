#include "engine/planner/fusion_pattern.h"

#include <algorithm>

namespace ie {
namespace {

// A fused node replaces every matched node by one with a single output, so a node whose other outputs are in
// use cannot be absorbed; and every tensor it touches must have a known dtype and shape for the fused node's
// inference and kernel choice.
bool well_typed(const FusionContext& ctx, const Node& node) {
  if (node.outputs.empty() || node.outputs[0].empty()) return false;
  for (size_t i = 1; i < node.outputs.size(); ++i)
    if (!node.outputs[i].empty()) return false;
  auto known = [&](const std::string& tensor) {
    if (tensor.empty()) return true;
    const TensorInfo* info = ctx.info(tensor);
    return info && info->dtype != DType::Undefined &&
           std::all_of(info->shape.begin(), info->shape.end(), [](int64_t d) { return d >= 0; });
  };
  return std::all_of(node.inputs.begin(), node.inputs.end(), known) && known(node.outputs[0]);
}

}  // namespace

PatternStep::PatternStep(const char* spec) {
  std::string s = spec;
  if (!s.empty() && s.back() == '?') {
    m_optional = true;
    s.pop_back();
  }
  for (size_t start = 0; start <= s.size();) {
    size_t bar = std::min(s.find('|', start), s.size());
    std::string op = s.substr(start, bar - start);
    size_t dot = op.rfind('.');  // domains have dots ("com.microsoft"), op types do not
    if (dot == std::string::npos)
      m_ops.emplace_back("", op);
    else
      m_ops.emplace_back(op.substr(0, dot), op.substr(dot + 1));
    start = bar + 1;
  }
}

PatternStep& PatternStep::when(Check check) {
  m_checks.push_back(std::move(check));
  return *this;
}

PatternStep& PatternStep::constant_input(size_t i) {
  m_constant_inputs.push_back(i);
  return *this;
}

PatternStep& PatternStep::fed_at(size_t i) {
  m_fed_at = static_cast<int>(i);
  return *this;
}

PatternStep& PatternStep::beside(PatternStep side) {
  m_side = std::make_shared<const PatternStep>(std::move(side));
  return *this;
}

bool PatternStep::accepts(const PatternMatch& m, const Node& node, const std::string& fed) const {
  bool op = std::any_of(m_ops.begin(), m_ops.end(),
                        [&](auto& o) { return o.first == node.domain && o.second == node.op_type; });
  if (!op) return false;
  if (m_fed_at >= 0 && !fed.empty() &&
      (static_cast<size_t>(m_fed_at) >= node.inputs.size() || node.inputs[m_fed_at] != fed))
    return false;
  for (size_t i : m_constant_inputs)
    if (i < node.inputs.size() && !node.inputs[i].empty() && !m.ctx().constant(node.inputs[i])) return false;
  return std::all_of(m_checks.begin(), m_checks.end(), [&](const Check& c) { return c(m, node); });
}

PatternMatch::PatternMatch(const FusionContext& ctx, size_t steps)
    : m_ctx(&ctx), m_nodes(steps, -1), m_beside(steps, -1) {}

const Node* PatternMatch::beside(size_t step) const {
  return step < m_beside.size() && m_beside[step] >= 0 ? &m_ctx->node(static_cast<size_t>(m_beside[step])) : nullptr;
}

const std::string& PatternMatch::output() const {
  size_t last = m_nodes.size();
  while (last > 0 && !has(last - 1)) --last;
  return node(last - 1).outputs[0];  // the root is always present
}

std::vector<size_t> PatternMatch::indices() const {
  std::vector<size_t> out;
  for (size_t s = 0; s < m_nodes.size(); ++s) {
    if (m_beside[s] >= 0) out.push_back(static_cast<size_t>(m_beside[s]));
    if (m_nodes[s] >= 0) out.push_back(static_cast<size_t>(m_nodes[s]));
  }
  return out;
}

bool PatternMatch::contains(size_t index) const {
  auto hit = [&](int i) { return i == static_cast<int>(index); };
  return std::any_of(m_nodes.begin(), m_nodes.end(), hit) || std::any_of(m_beside.begin(), m_beside.end(), hit);
}

std::string PatternMatch::outside_input(const Node& node) const {
  std::string found;
  int count = 0;
  for (auto& in : node.inputs) {
    if (in.empty()) continue;
    int producer = m_ctx->producer(in);
    if (producer >= 0 && contains(static_cast<size_t>(producer))) continue;
    found = in;
    ++count;
  }
  return count == 1 ? found : "";
}

Pattern::Pattern(std::initializer_list<PatternStep> steps) : m_steps(steps) {}

std::optional<PatternMatch> Pattern::match(const FusionContext& ctx, size_t root) const {
  if (m_steps.empty() || m_steps[0].optional() || ctx.is_taken(root)) return std::nullopt;
  PatternMatch m(ctx, m_steps.size());
  if (!try_step(m, 0, root, "") || !extend(m, 1, ctx.node(root).outputs[0])) return std::nullopt;
  return m;
}

// Step `step` at node `index`, fed by `fed`: the step's tests, the shared checks, and its side node if it asks for
// one. Records the node (and side node) in `m` on success.
bool Pattern::try_step(PatternMatch& m, size_t step, size_t index, const std::string& fed) const {
  const FusionContext& ctx = m.ctx();
  const Node& node = ctx.node(index);
  const PatternStep& s = m_steps[step];
  if (!s.accepts(m, node, fed) || !well_typed(ctx, node)) return false;
  if (const PatternStep* side = s.side()) {
    std::string joined = m.outside_input(node);
    int producer = joined.empty() ? -1 : ctx.producer(joined);
    if (producer < 0 || m.contains(static_cast<size_t>(producer)) ||
        ctx.sole_consumer(joined) != static_cast<int>(index))
      return false;
    const Node& side_node = ctx.node(static_cast<size_t>(producer));
    if (!side->accepts(m, side_node, "") || !well_typed(ctx, side_node)) return false;
    m.m_beside[step] = producer;
  }
  m.m_nodes[step] = static_cast<int>(index);
  return true;
}

// Matches steps `step`.. where the previous present step produced `fed`: its one reader must take the next step
// (the interior-edge check: sole_consumer refuses a second reader, a graph output and a node already taken).
bool Pattern::extend(PatternMatch& m, size_t step, const std::string& fed) const {
  if (step == m_steps.size()) return true;
  int next = m.ctx().sole_consumer(fed);
  if (next >= 0 && try_step(m, step, static_cast<size_t>(next), fed)) {
    if (extend(m, step + 1, m.node(step).outputs[0])) return true;
    m.m_nodes[step] = m.m_beside[step] = -1;
  }
  return m_steps[step].optional() && extend(m, step + 1, fed);
}

std::vector<PatternMatch> Pattern::shrink(const PatternMatch& m) const {
  std::vector<PatternMatch> forms = {m};
  for (;;) {
    PatternMatch shorter = forms.back();
    size_t last = shorter.size();
    while (last > 0 && !shorter.has(last - 1)) --last;
    if (last <= 1 || !m_steps[last - 1].optional()) return forms;
    shorter.m_nodes[last - 1] = shorter.m_beside[last - 1] = -1;
    forms.push_back(std::move(shorter));
  }
}

bool replace_first(FusionContext& ctx, std::vector<FusionCandidate> candidates, const std::string& rule) {
  for (auto& c : candidates)
    if (ctx.replace(c.nodes, std::move(c.fused), rule)) return true;
  return false;
}

bool fuse(FusionContext& ctx, size_t root, const Pattern& pattern, const std::string& rule, const BuildFused& build) {
  std::optional<PatternMatch> m = pattern.match(ctx, root);
  if (!m) return false;
  std::vector<FusionCandidate> candidates;
  for (const PatternMatch& form : pattern.shrink(*m)) candidates.push_back({form.indices(), build(ctx, form)});
  return replace_first(ctx, std::move(candidates), rule);
}

}  // namespace ie
