// Text report of a plan for `inspect`: graph summary, fused schedule, memory plan.
#include <iomanip>
#include <map>
#include <sstream>

#include "engine/core/byte_size.h"
#include "engine/planner/plan.h"

namespace ie {

std::string describe_plan(const Plan& plan) {
  std::ostringstream os;
  const Graph& g = plan.graph;
  os << "model: " << g.source << " (opset " << g.opset << ")\n";
  os << "inputs:";
  for (auto& [name, shape] : plan.input_shapes) os << " " << name << shape_to_string(shape);
  os << "\noutputs:";
  for (int s : plan.output_slots)
    os << " " << plan.slots[s].name << shape_to_string(plan.slots[s].info.shape) << ":" << dtype_name(plan.slots[s].info.dtype);
  os << "\ngraph: " << plan.onnx_nodes << " ONNX nodes; " << plan.folded_nodes << " folded at plan time, "
     << plan.removed_nodes << " dead removed; " << plan.steps.size() << " steps on " << plan.backend->name();
  if (!plan.views.empty())
    os << " (and " << plan.views.size() << (plan.views.size() == 1 ? " view" : " views") << " without a step)";
  os << "\n";
  std::map<std::string, int> served;
  size_t fallbacks = 0;
  for (auto& st : plan.steps) {
    ++served[st.kernel_set];
    fallbacks += !st.declined.empty();
  }
  os << "precision: " << precision_name(plan.precision);
  if (plan.precision_casts) os << " (" << plan.precision_casts << " casts placed)";
  os << "; kernel sets:";
  for (auto& set : plan.kernel_sets) os << " " << set << " x" << served[set];
  if (fallbacks) os << "; " << fallbacks << " steps fell back";
  os << "\n";
  os << "fusions:";
  if (plan.fusion.applied.empty()) os << " none";
  for (auto& [rule, n] : plan.fusion.applied) os << " " << rule << " x" << n;
  os << "\n\nschedule:\n";
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step& st = plan.steps[i];
    std::string op = st.node.domain.empty() ? st.node.op_type : st.node.domain + "." + st.node.op_type;
    std::string act = st.node.attrs.get_string("activation", "");
    std::string pool = st.node.attrs.has("pool") ? st.node.attrs.get_string("pool", "") : "";
    if (!act.empty()) op += "+" + act;
    if (!pool.empty()) op += "+" + pool;
    os << "  " << std::setw(3) << i << "  " << std::left << std::setw(26) << op << " " << std::setw(14)
       << st.kernel_set << std::right;
    if (st.outputs.size() && st.outputs[0] >= 0) {
      const Slot& out = plan.slots[st.outputs[0]];
      os << " -> " << out.name << shape_to_string(out.info.shape);
    }
    if (!st.node.covers.empty()) {
      os << "   [" << st.node.fusion << ": ";
      for (size_t k = 0; k < st.node.covers.size(); ++k) os << (k ? ", " : "") << st.node.covers[k];
      os << "]";
    }
    os << "\n";
    // Why earlier kernel sets passed this step on (shape out of range, precision, no kernel, switched off).
    for (auto& why : st.declined) os << "         fallback: " << why << "\n";
  }
  if (!plan.views.empty()) {
    os << "views (no step: each output shares its input's buffer):\n";
    for (auto& v : plan.views) {
      const Slot& out = plan.slots[v.output];
      os << "       " << std::left << std::setw(26) << v.node.op_type << std::right << " " << v.node.name << " -> "
         << out.name << shape_to_string(out.info.shape) << "\n";
    }
  }
  os << "\nmemory plan: arena " << human_bytes(plan.arena_bytes) << " for " << human_bytes(plan.tensor_bytes)
     << " of tensors (" << std::fixed << std::setprecision(1)
     << (plan.tensor_bytes ? 100.0 * plan.arena_bytes / plan.tensor_bytes : 100.0) << "%)\n";
  size_t constant_bytes = 0;
  for (auto& [name, t] : g.constants) constant_bytes += t.nbytes();
  os << "constants: " << g.constants.size() << " tensors, " << human_bytes(constant_bytes) << "\n";
  return os.str();
}

}  // namespace ie
