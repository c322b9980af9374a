#include "engine/planner/shape_inference.h"

#include "engine/registry/node_runner.h"

namespace ie {

namespace {
// Folding runs a node at load time, before Options::limits are checked and outside the arena: only what is small
// and cheap folds, the rest runs at run time under those limits. A node whose result is this large would bloat the
// plan; one this costly (by the cost model) would stall loading; past this total, folded results would hold more
// memory than the model's file suggests (small results, as shape computations, still fold: other ops read them).
constexpr int64_t kMaxFoldElements = int64_t(1) << 24;
constexpr double kMaxFoldFlops = 1e8;
constexpr size_t kMaxFoldedBytes = size_t(256) << 20;
constexpr int64_t kAlwaysFoldElements = int64_t(1) << 16;

// Op inference names the node and its op; add the input tensors so the message also names the tensors involved.
InferContext infer_naming_inputs(const Node& node, const std::vector<TensorInfo>& infos,
                                 const std::vector<const Tensor*>& constants, int64_t opset) {
  auto with_inputs = [&](const char* message) {
    std::string list;
    for (size_t i = 0; i < node.inputs.size() && i < infos.size(); ++i)
      if (!node.inputs[i].empty())
        list += concat(list.empty() ? "'" : ", '", node.inputs[i], "' ", dtype_name(infos[i].dtype),
                       shape_to_string(infos[i].shape));
    return std::string(message) + " (inputs: " + list + ")";
  };
  try {
    return infer_node(node, infos, constants, opset);
  } catch (const NeedsValue&) {
    throw;  // already names the tensor; the session catches this type to bind shape-tensor inputs
  } catch (const Unsupported& e) {
    throw Unsupported(with_inputs(e.what()));
  } catch (const Error& e) {
    throw Error(e.kind(), with_inputs(e.what()));
  }
}
}  // namespace

void check_input_shape(const TensorDecl& decl, const Shape& shape) {
  checked_numel(shape, "input '" + decl.name + "'");
  if (!decl.has_shape) return;
  if (shape.size() != decl.dims.size())
    fail_input("input '", decl.name, "': expected rank ", decl.dims.size(), " (shape ", shape_to_string(decl.dims),
               "), got shape ", shape_to_string(shape));
  for (size_t i = 0; i < shape.size(); ++i)
    if (decl.dims[i] >= 0 && decl.dims[i] != shape[i])
      fail_input("input '", decl.name, "': dimension ", i, " must be ", decl.dims[i], ", got ", shape[i], " (shape ",
                 shape_to_string(shape), ")");
}

InferenceResult infer_and_fold(Graph& g, const std::map<std::string, Shape>& input_shapes) {
  InferenceResult result;
  for (auto& decl : g.inputs) {
    auto it = input_shapes.find(decl.name);
    if (it == input_shapes.end()) fail_input("no shape given for graph input '", decl.name, "'");
    check_input_shape(decl, it->second);
    result.infos[decl.name] = TensorInfo{decl.dtype, it->second};
  }
  for (auto& [name, t] : g.constants) result.infos[name] = TensorInfo{t.dtype(), t.shape()};

  std::vector<Node> kept;
  size_t folded_bytes = 0;
  for (auto& node : g.nodes) {
    const OpDef* def = OpRegistry::get().find(node.domain, node.op_type);
    if (!def) fail_unsupported(g.source, ": ", node.label(), ": op '", node.op_type, "' is not supported");
    std::vector<TensorInfo> infos;
    std::vector<const Tensor*> constants;
    bool all_constant = true;
    for (auto& in : node.inputs) {
      if (in.empty()) {
        infos.emplace_back();
        constants.push_back(nullptr);
        continue;
      }
      auto it = result.infos.find(in);
      if (it == result.infos.end()) fail_input(g.source, ": ", node.label(), " reads unknown tensor '", in, "'");
      infos.push_back(it->second);
      auto c = g.constants.find(in);
      constants.push_back(c == g.constants.end() ? nullptr : &c->second);
      all_constant &= c != g.constants.end();
    }
    InferContext ctx = infer_naming_inputs(node, infos, constants, g.opset);
    bool known = true;
    int64_t out_elems = 0;
    size_t out_bytes = 0;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty()) continue;
      result.infos[node.outputs[i]] = ctx.outputs[i];
      known &= !ctx.output_constants[i].empty();
      const int64_t n = numel_range(ctx.outputs[i].shape, 0, ctx.outputs[i].shape.size());
      out_elems += n;
      out_bytes += static_cast<size_t>(n) * dtype_size(ctx.outputs[i].dtype);
    }
    if (known) {
      for (size_t i = 0; i < node.outputs.size(); ++i)
        if (!node.outputs[i].empty()) g.constants[node.outputs[i]] = ctx.output_constants[i];
      result.folded_nodes++;
      continue;
    }
    const auto fold_fits = [&] {
      return out_elems <= kMaxFoldElements &&
             (out_elems <= kAlwaysFoldElements || folded_bytes + out_bytes <= kMaxFoldedBytes) &&
             OpRegistry::get().cost(node, infos, ctx.outputs).flops <= kMaxFoldFlops;
    };
    if (all_constant && def->foldable && !g.is_graph_output(node.outputs[0]) && fold_fits()) {
      folded_bytes += out_bytes;
      std::vector<Tensor> values;
      for (auto* c : constants) values.push_back(c ? *c : Tensor());
      auto outs = run_node_cpu(node, values, g.opset);
      for (size_t i = 0; i < node.outputs.size(); ++i)
        if (!node.outputs[i].empty()) g.constants[node.outputs[i]] = outs[i];
      result.folded_nodes++;
      continue;
    }
    kept.push_back(std::move(node));
  }
  g.nodes = std::move(kept);
  return result;
}

}  // namespace ie
