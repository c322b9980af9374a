#include "engine/planner/fusion.h"

#include <algorithm>

#include "engine/core/dtype_dispatch.h"

namespace ie {

FusionContext::FusionContext(Graph& g, std::map<std::string, TensorInfo>& infos, Accept accept)
    : m_graph(g), m_infos(infos), m_accept(std::move(accept)) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (auto& in : g.nodes[i].inputs)
      if (!in.empty()) m_consumers[in].push_back(i);
    for (auto& out : g.nodes[i].outputs)
      if (!out.empty()) m_producers[out] = i;
  }
}

const TensorInfo* FusionContext::info(const std::string& tensor) const {
  auto it = m_infos.find(tensor);
  return it == m_infos.end() ? nullptr : &it->second;
}

const Tensor* FusionContext::constant(const std::string& tensor) const {
  auto it = m_graph.constants.find(tensor);
  return it == m_graph.constants.end() ? nullptr : &it->second;
}

std::vector<size_t> FusionContext::consumers(const std::string& tensor) const {
  auto it = m_consumers.find(tensor);
  return it == m_consumers.end() ? std::vector<size_t>{} : it->second;
}

int FusionContext::sole_consumer(const std::string& tensor) const {
  if (m_graph.is_graph_output(tensor)) return -1;
  auto c = consumers(tensor);
  if (c.size() != 1 || m_removed.count(c[0])) return -1;
  return static_cast<int>(c[0]);
}

int FusionContext::producer(const std::string& tensor) const {
  auto it = m_producers.find(tensor);
  return it == m_producers.end() || m_removed.count(it->second) ? -1 : static_cast<int>(it->second);
}

bool FusionContext::scalar_value(const std::string& tensor, double& value) const {
  const Tensor* t = constant(tensor);
  if (!t || t->numel() != 1) return false;
  switch (t->dtype()) {
    case DType::Float32: value = *t->data_as<float>(); return true;
    case DType::Float64: value = *t->data_as<double>(); return true;
    case DType::Float16: value = static_cast<float>(*t->data_as<half>()); return true;
    case DType::BFloat16: value = static_cast<float>(*t->data_as<bfloat16>()); return true;
    case DType::Int64: value = static_cast<double>(*t->data_as<int64_t>()); return true;
    case DType::Int32: value = *t->data_as<int32_t>(); return true;
    default: return false;
  }
}

std::string FusionContext::add_constant(const std::string& hint, Tensor value) {
  std::string name = hint;
  for (int k = 1; m_graph.constants.count(name) || m_infos.count(name); ++k) name = hint + "_" + std::to_string(k);
  m_infos[name] = TensorInfo{value.dtype(), value.shape()};
  m_graph.constants[name] = std::move(value);
  return name;
}

bool FusionContext::replace(const std::vector<size_t>& matched, Node fused, const std::string& rule) {
  if (m_accept && !m_accept(fused)) return false;
  size_t last = *std::max_element(matched.begin(), matched.end());
  std::vector<size_t> in_order = matched;
  std::sort(in_order.begin(), in_order.end());
  for (size_t i : in_order) fused.replaced.push_back(m_graph.nodes[i]);
  for (size_t i : matched) {
    const Node& n = m_graph.nodes[i];
    if (n.covers.empty()) fused.covers.push_back(n.name);
    else fused.covers.insert(fused.covers.end(), n.covers.begin(), n.covers.end());
    m_removed.insert(i);
  }
  fused.fusion = rule;
  m_inserted[last] = std::move(fused);
  return true;
}

size_t FusionContext::commit() {
  if (m_removed.empty()) return 0;
  std::vector<Node> out;
  for (size_t i = 0; i < m_graph.nodes.size(); ++i) {
    if (!m_removed.count(i)) out.push_back(std::move(m_graph.nodes[i]));
    auto it = m_inserted.find(i);
    if (it != m_inserted.end()) out.push_back(std::move(it->second));
  }
  size_t n = m_inserted.size();
  m_graph.nodes = std::move(out);
  m_removed.clear();
  m_inserted.clear();
  return n;
}

std::vector<FusionRule>& fusion_rules() {
  static std::vector<FusionRule> rules;
  return rules;
}

std::vector<std::string> fusion_rule_names() {
  auto rules = fusion_rules();
  std::stable_sort(rules.begin(), rules.end(), [](auto& a, auto& b) { return a.order < b.order; });
  std::vector<std::string> names;
  for (auto& r : rules) names.push_back(r.name);
  return names;
}

FusionReport apply_fusions(Graph& g, std::map<std::string, TensorInfo>& infos, const std::set<std::string>& disabled,
                           const FusionContext::Accept& accept, bool after_precision) {
  FusionReport report;
  if (disabled.count("all")) return report;
  auto rules = fusion_rules();
  std::stable_sort(rules.begin(), rules.end(), [](auto& a, auto& b) { return a.order < b.order; });
  for (auto& rule : rules) {
    if (disabled.count(rule.name) || rule.after_precision != after_precision) continue;
    // Each pass matches on a fresh index; a rule's output may feed the same rule again (chains), so repeat.
    for (int pass = 0; pass < 8; ++pass) {
      FusionContext ctx(g, infos, accept);
      for (size_t i = 0; i < g.nodes.size(); ++i)
        if (!ctx.is_taken(i)) rule.try_match(ctx, i);
      size_t n = ctx.commit();
      if (n == 0) break;
      report.applied[rule.name] += static_cast<int>(n);
    }
  }
  return report;
}

}  // namespace ie
