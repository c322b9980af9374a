#include "engine/planner/precision_pass.h"

#include <functional>
#include <set>

#include "engine/core/float_convert.h"
#include "engine/planner/shape_inference.h"

namespace ie {

namespace {

// FNV-1a over the bytes: folded constants are named after their nodes, so the name alone may not say the value.
uint64_t content_hash(const Tensor& t) {
  uint64_t h = 1469598103934665603ull;
  const auto* p = static_cast<const unsigned char*>(t.data());
  for (size_t i = 0; i < t.nbytes(); ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

bool is_fixed_input(const Node& node, size_t index) {
  const OpDef* def = OpRegistry::get().find(node.domain, node.op_type);
  if (!def) return false;
  for (int i : def->fixed_type_inputs)
    if (static_cast<size_t>(i) == index) return true;
  return false;
}

// Renames reads in a node and in the nodes a fused node stands for (lowered instead of it when no set runs it).
void rename_reads(Node& node, const std::string& from, const std::string& to) {
  for (auto& in : node.inputs)
    if (in == from) in = to;
  for (auto& part : node.replaced) rename_reads(part, from, to);
}

// Renames a node's output, and the same output of the part of a fused node that writes it.
void rename_writes(Node& node, const std::string& from, const std::string& to) {
  for (auto& out : node.outputs)
    if (out == from) out = to;
  for (auto& part : node.replaced) rename_writes(part, from, to);
}

// Renames the reads of `from` except at the op's fixed-type inputs, in fused nodes' parts too.
void rename_free_reads(Node& node, const std::string& from, const std::string& to) {
  for (size_t i = 0; i < node.inputs.size(); ++i)
    if (node.inputs[i] == from && !is_fixed_input(node, i)) node.inputs[i] = to;
  for (auto& part : node.replaced) rename_free_reads(part, from, to);
}

void rename_reads(Graph& g, const std::string& from, const std::string& to) {
  for (auto& node : g.nodes) rename_reads(node, from, to);
}

}  // namespace

Node make_cast(const std::string& from, const std::string& to, DType dtype) {
  Node cast;
  cast.name = to + "/cast";
  cast.op_type = "Cast";
  cast.inputs = {from};
  cast.outputs = {to};
  cast.attrs.set_int("to", static_cast<int64_t>(dtype));
  cast.fusion = "precision";
  return cast;
}

Tensor converted_constant(ConstantStore& store, const std::string& name, const Tensor& t, DType dtype) {
  std::string key = concat("precision/", dtype_name(dtype), "/", name, shape_to_string(t.shape()), "/",
                           dtype_name(t.dtype()), "/", content_hash(t));
  return store.get_or_make(key, [&] { return convert_floats(t, dtype); });
}

size_t lower_precision(Graph& g, Precision precision, ConstantStore& store,
                       const std::map<std::string, Shape>& input_shapes, std::map<std::string, TensorInfo>& infos) {
  const DType storage = storage_dtype(precision);
  if (storage == DType::Float32) return 0;
  const std::string suffix = std::string("/") + precision_name(precision);
  size_t casts = 0;

  // Weights: one converted copy per engine; a constant also read at a fixed-type input keeps its float32 self.
  // Reads inside fused nodes' parts count too: a part runs when no kernel set takes the fused node.
  std::set<std::string> fixed_reads, free_reads;
  std::function<void(const Node&)> note_reads = [&](const Node& node) {
    for (size_t i = 0; i < node.inputs.size(); ++i)
      if (g.is_constant(node.inputs[i]) && g.constants.at(node.inputs[i]).dtype() == DType::Float32)
        (is_fixed_input(node, i) ? fixed_reads : free_reads).insert(node.inputs[i]);
    for (auto& part : node.replaced) note_reads(part);
  };
  for (auto& node : g.nodes) note_reads(node);
  for (auto& name : free_reads) {
    Tensor converted = converted_constant(store, name, g.constants.at(name), storage);
    if (!fixed_reads.count(name) && !g.is_graph_output(name)) {
      g.constants[name] = converted;
      continue;
    }
    std::string lowered = g.unique_name(name + suffix);
    g.constants[lowered] = converted;
    for (auto& node : g.nodes) rename_free_reads(node, name, lowered);
  }

  // Casts to float32 inside the graph produce the storage type instead (in fused nodes' parts too).
  std::function<void(Node&)> retarget_casts = [&](Node& node) {
    if (node.op_type == "Cast" && node.domain.empty() && node.attrs.get_int("to", 0) == int64_t(DType::Float32))
      node.attrs.set_int("to", static_cast<int64_t>(storage));
    for (auto& part : node.replaced) retarget_casts(part);
  };
  for (auto& node : g.nodes) retarget_casts(node);

  // The graph's float32 inputs enter through a Cast ...
  std::vector<Node> head;
  for (auto& decl : g.inputs) {
    if (decl.dtype != DType::Float32) continue;
    std::string lowered = g.unique_name(decl.name + suffix);
    rename_reads(g, decl.name, lowered);
    head.push_back(make_cast(decl.name, lowered, storage));
  }
  g.nodes.insert(g.nodes.begin(), head.begin(), head.end());
  casts += head.size();

  // ... and its float32 outputs leave through one (known now: an output's type comes from inference).
  InferenceResult typed = infer_and_fold(g, input_shapes);
  for (auto& decl : g.outputs) {
    auto it = typed.infos.find(decl.name);
    if (it == typed.infos.end() || it->second.dtype != storage || g.is_constant(decl.name) ||
        g.is_graph_input(decl.name))
      continue;
    int producer = g.producer_of(decl.name);
    if (producer < 0) continue;
    std::string lowered = g.unique_name(decl.name + suffix);
    rename_writes(g.nodes[producer], decl.name, lowered);
    rename_reads(g, decl.name, lowered);
    g.nodes.push_back(make_cast(lowered, decl.name, DType::Float32));
    ++casts;
  }
  infos = infer_and_fold(g, input_shapes).infos;
  return casts;
}

}  // namespace ie
