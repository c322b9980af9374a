#include "engine/ir/graph.h"

#include <deque>

#include "engine/core/error.h"

namespace ie {

std::string Node::label() const {
  std::string op = domain.empty() ? op_type : domain + "." + op_type;
  return "node '" + name + "' (" + op + ")";
}

bool Graph::is_graph_output(const std::string& name) const {
  for (auto& o : outputs)
    if (o.name == name) return true;
  return false;
}

bool Graph::is_graph_input(const std::string& name) const {
  for (auto& i : inputs)
    if (i.name == name) return true;
  return false;
}

std::map<std::string, int> Graph::consumer_counts() const {
  std::map<std::string, int> counts;
  for (auto& n : nodes)
    for (auto& in : n.inputs)
      if (!in.empty()) counts[in]++;
  for (auto& o : outputs) counts[o.name]++;
  return counts;
}

int Graph::producer_of(const std::string& name) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    for (auto& o : nodes[i].outputs)
      if (o == name) return static_cast<int>(i);
  return -1;
}

void Graph::topological_sort() {
  std::map<std::string, int> producer;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (auto& o : nodes[i].outputs) {
      if (o.empty()) continue;
      if (producer.count(o) || constants.count(o) || is_graph_input(o))
        fail_input(source, ": tensor '", o, "' is produced twice (second time by ", nodes[i].label(), ")");
      producer[o] = static_cast<int>(i);
    }
  std::vector<int> pending(nodes.size(), 0);
  std::map<int, std::vector<int>> users;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (auto& in : nodes[i].inputs) {
      if (in.empty() || constants.count(in) || is_graph_input(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end())
        fail_input(source, ": ", nodes[i].label(), " reads tensor '", in,
                   "', which is neither a graph input, an initializer nor the output of another node");
      pending[i]++;
      users[it->second].push_back(static_cast<int>(i));
    }
  std::deque<int> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  std::vector<Node> sorted;
  sorted.reserve(nodes.size());
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    sorted.push_back(nodes[i]);
    for (int u : users[i])
      if (--pending[u] == 0) ready.push_back(u);
  }
  if (sorted.size() != nodes.size()) fail_input(source, ": the graph has a cycle");
  nodes = std::move(sorted);
  for (auto& o : outputs)
    if (!producer.count(o.name) && !constants.count(o.name) && !is_graph_input(o.name))
      fail_input(source, ": graph output '", o.name, "' is produced by no node");
}

size_t Graph::remove_dead_nodes() {
  std::set<std::string> live;
  for (auto& o : outputs) live.insert(o.name);
  std::vector<bool> keep(nodes.size(), false);
  for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) {
    bool used = false;
    for (auto& o : nodes[i].outputs) used |= live.count(o) != 0;
    if (!used) continue;
    keep[i] = true;
    for (auto& in : nodes[i].inputs)
      if (!in.empty()) live.insert(in);
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (keep[i]) kept.push_back(std::move(nodes[i]));
  size_t removed = nodes.size() - kept.size();
  nodes = std::move(kept);
  for (auto it = constants.begin(); it != constants.end();)
    it = live.count(it->first) ? std::next(it) : constants.erase(it);
  return removed;
}

std::string Graph::unique_name(const std::string& hint) const {
  std::set<std::string> used;
  for (auto& n : nodes) {
    used.insert(n.name);
    for (auto& o : n.outputs) used.insert(o);
  }
  for (auto& [k, v] : constants) used.insert(k);
  for (auto& i : inputs) used.insert(i.name);
  if (!used.count(hint)) return hint;
  for (int k = 1;; ++k)
    if (!used.count(hint + "_" + std::to_string(k))) return hint + "_" + std::to_string(k);
}

}  // namespace ie
