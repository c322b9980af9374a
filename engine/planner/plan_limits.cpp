#include "engine/planner/plan_limits.h"

#include "engine/core/byte_size.h"
#include "engine/core/checked_math.h"

namespace ie {

namespace {

constexpr const char* kHowToRaise = "raise it with --max-memory or Options::limits if the model really needs it";

void check_tensor(const std::string& who, const std::string& name, const TensorInfo& info, const Limits& limits) {
  const size_t bytes = checked_bytes(info.shape, info.dtype, concat(who, " '", name, "'"));
  if (bytes > limits.max_tensor_bytes)
    fail_input(who, " '", name, "' (", dtype_name(info.dtype), shape_to_string(info.shape), ") needs ",
               human_bytes(bytes), ", more than the single-tensor limit of ", human_bytes(limits.max_tensor_bytes),
               " (", kHowToRaise, ")");
}

}  // namespace

void check_node_limits(const Graph& g, const std::map<std::string, TensorInfo>& infos, const Limits& limits) {
  for (auto& decl : g.inputs) check_tensor("graph input", decl.name, infos.at(decl.name), limits);
  for (auto& node : g.nodes) {
    std::vector<TensorInfo> in, out;
    for (auto& name : node.inputs) in.push_back(name.empty() ? TensorInfo{} : infos.at(name));
    for (auto& name : node.outputs) {
      out.push_back(name.empty() ? TensorInfo{} : infos.at(name));
      if (!name.empty()) check_tensor(node.label() + " output", name, out.back(), limits);
    }
    const double flops = OpRegistry::get().cost(node, in, out).flops;
    if (flops > limits.max_op_flops)
      fail_input(node.label(), ": needs ", flops, " operations, more than the per-op limit of ", limits.max_op_flops,
                 " (Options::limits.max_op_flops; raise it if the model really needs it)");
  }
}

void check_arena_limit(size_t arena_bytes, const std::string& largest, size_t largest_bytes, const Limits& limits) {
  if (arena_bytes > limits.max_arena_bytes)
    fail_input("the plan needs an arena of ", human_bytes(arena_bytes), " (largest tensor '", largest,
               "': ", human_bytes(largest_bytes), "), more than the memory limit of ",
               human_bytes(limits.max_arena_bytes), " (", kHowToRaise, ")");
}

}  // namespace ie
