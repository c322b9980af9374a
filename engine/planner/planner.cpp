#include <algorithm>

#include "engine/executor/plan.h"
#include "engine/planner/memory_plan.h"
#include "engine/planner/shape_inference.h"
#include "engine/registry/node_runner.h"

namespace ie {

Plan::~Plan() {
  if (arena && backend) backend->deallocate(arena);
}

void* Plan::slot_data(int slot) const {
  const Slot& s = slots[slot];
  return s.is_constant ? const_cast<void*>(s.constant) : static_cast<char*>(arena) + s.offset;
}

namespace {

int add_slot(Plan& plan, const std::string& name, const TensorInfo& info) {
  auto it = plan.slot_of.find(name);
  if (it != plan.slot_of.end()) return it->second;
  Slot s;
  s.name = name;
  s.info = info;
  plan.slots.push_back(s);
  int index = static_cast<int>(plan.slots.size()) - 1;
  plan.slot_of[name] = index;
  return index;
}

// Creates every step's kernel; a node the backend cannot run is an error naming it.
void lower(Plan& plan, const std::map<std::string, TensorInfo>& infos, const PlanOptions& options) {
  for (auto& node : plan.graph.nodes) {
    Step step;
    step.node = node;
    std::vector<TensorInfo> in_infos;
    std::vector<const Tensor*> constants;
    for (auto& in : node.inputs) {
      if (in.empty()) {
        in_infos.emplace_back();
        constants.push_back(nullptr);
        step.inputs.push_back(-1);
        continue;
      }
      const TensorInfo& info = infos.at(in);
      in_infos.push_back(info);
      auto c = plan.graph.constants.find(in);
      constants.push_back(c == plan.graph.constants.end() ? nullptr : &c->second);
      int slot = add_slot(plan, in, info);
      if (c != plan.graph.constants.end() && !plan.slots[slot].is_constant) {
        plan.slots[slot].is_constant = true;
        plan.slots[slot].constant = plan.backend->constant_data(c->second);
      }
      step.inputs.push_back(slot);
    }
    std::vector<TensorInfo> out_infos;
    for (auto& out : node.outputs) {
      if (out.empty()) {
        out_infos.emplace_back();
        step.outputs.push_back(-1);
        continue;
      }
      out_infos.push_back(infos.at(out));
      step.outputs.push_back(add_slot(plan, out, infos.at(out)));
    }
    const KernelFactory* factory = OpRegistry::get().kernel(node.domain, node.op_type, plan.backend->name());
    if (!factory)
      fail_unsupported(plan.graph.source, ": ", node.label(), ": no ", plan.backend->name(), " kernel for this op");
    KernelInit init{node, in_infos, constants, out_infos, plan.graph.opset, options.precision,
                    plan.backend->kernel_state()};
    step.kernel = (*factory)(init);
    if (!step.kernel)
      fail_unsupported(plan.graph.source, ": ", node.label(), ": the ", plan.backend->name(),
                       " kernel does not support this configuration (inputs ",
                       [&] {
                         std::string s;
                         for (auto& i : in_infos) s += std::string(dtype_name(i.dtype)) + shape_to_string(i.shape) + " ";
                         return s;
                       }(),
                       ")");
    step.workspace_bytes = step.kernel->workspace_bytes();
    plan.steps.push_back(std::move(step));
  }
}

// Lifetimes -> arena offsets. A view op's output shares its input's buffer, so both get the root's offset.
void plan_arena(Plan& plan) {
  int n_steps = static_cast<int>(plan.steps.size());
  std::map<int, int> root;  // slot -> slot whose buffer it uses
  auto find_root = [&](int s) {
    while (root.count(s)) s = root[s];
    return s;
  };
  std::map<int, BufferRequest> lifetimes;
  auto touch = [&](int slot, int step) {
    auto& r = lifetimes[slot];
    r.first_step = std::min(r.first_step, step);
    r.last_step = std::max(r.last_step, step);
  };
  for (auto& [name, slot] : plan.slot_of) {
    if (plan.slots[slot].is_constant) continue;
    BufferRequest r;
    r.name = name;
    r.bytes = static_cast<size_t>(checked_numel(plan.slots[slot].info.shape, name)) *
              dtype_size(plan.slots[slot].info.dtype);
    r.first_step = n_steps;
    r.last_step = -1;
    lifetimes[slot] = r;
  }
  for (int s : plan.input_slots)
    if (!plan.slots[s].is_constant) touch(s, -1);
  for (int i = 0; i < n_steps; ++i) {
    Step& step = plan.steps[i];
    const OpDef* def = OpRegistry::get().find(step.node.domain, step.node.op_type);
    for (int s : step.inputs)
      if (s >= 0 && !plan.slots[s].is_constant) touch(s, i);
    for (int s : step.outputs)
      if (s >= 0) touch(s, i);
    if (def && def->view_of_input >= 0 && step.outputs[0] >= 0 &&
        static_cast<size_t>(def->view_of_input) < step.inputs.size()) {
      int in = step.inputs[def->view_of_input];
      if (in >= 0 && !plan.slots[in].is_constant) root[step.outputs[0]] = find_root(in);
    }
  }
  for (int s : plan.output_slots)
    if (!plan.slots[s].is_constant) touch(s, n_steps + 1);
  // Merge each view's lifetime into its root buffer.
  std::map<int, BufferRequest> buffers;
  for (auto& [slot, r] : lifetimes) {
    int rs = find_root(slot);
    auto it = buffers.find(rs);
    if (it == buffers.end()) {
      BufferRequest b = lifetimes[rs];
      buffers[rs] = b;
      it = buffers.find(rs);
    }
    it->second.first_step = std::min(it->second.first_step, r.first_step);
    it->second.last_step = std::max(it->second.last_step, r.last_step);
  }
  std::vector<BufferRequest> requests;
  std::vector<int> owners;
  for (auto& [slot, r] : buffers) {
    requests.push_back(r);
    owners.push_back(slot);
  }
  for (int i = 0; i < n_steps; ++i)
    if (plan.steps[i].workspace_bytes) {
      requests.push_back(BufferRequest{"workspace:" + plan.steps[i].node.name, plan.steps[i].workspace_bytes, i, i});
      owners.push_back(-1 - i);
    }
  MemoryPlan mp = plan_memory(requests);
  plan.arena_bytes = mp.arena_bytes;
  plan.tensor_bytes = mp.total_bytes;
  for (size_t k = 0; k < requests.size(); ++k) {
    if (owners[k] >= 0) plan.slots[owners[k]].offset = mp.offsets[k];
    else plan.steps[-1 - owners[k]].workspace_offset = mp.offsets[k];
  }
  for (auto& [slot, r] : lifetimes) plan.slots[slot].offset = plan.slots[find_root(slot)].offset;
}

void bind_contexts(Plan& plan) {
  for (auto& step : plan.steps) {
    step.ctx = KernelContext{};
    for (int s : step.inputs)
      step.ctx.inputs.push_back(s < 0 ? TensorRef{} : TensorRef{plan.slot_data(s), plan.slots[s].info.dtype,
                                                                  plan.slots[s].info.shape});
    for (int s : step.outputs)
      step.ctx.outputs.push_back(s < 0 ? TensorRef{} : TensorRef{plan.slot_data(s), plan.slots[s].info.dtype,
                                                                   plan.slots[s].info.shape});
    step.ctx.workspace = step.workspace_bytes ? static_cast<char*>(plan.arena) + step.workspace_offset : nullptr;
    step.ctx.workspace_bytes = step.workspace_bytes;
    step.ctx.stream = plan.backend->stream();
  }
}

}  // namespace

std::unique_ptr<Plan> build_plan(const Graph& model, const std::map<std::string, Shape>& input_shapes,
                                 std::shared_ptr<Backend> backend, const PlanOptions& options,
                                 const BoundValues& bound) {
  auto plan = std::make_unique<Plan>();
  plan->backend = std::move(backend);
  plan->graph = model;
  plan->onnx_nodes = model.nodes.size();
  plan->input_shapes = input_shapes;
  Graph& g = plan->graph;
  for (auto& [name, value] : bound) {
    auto it = std::find_if(g.inputs.begin(), g.inputs.end(), [&](const TensorDecl& d) { return d.name == name; });
    if (it == g.inputs.end()) continue;
    g.inputs.erase(it);
    g.constants[name] = value.clone();
    plan->bound_inputs.insert(name);
    plan->input_shapes.erase(name);
  }

  InferenceResult inferred = infer_and_fold(g, plan->input_shapes);
  plan->folded_nodes = inferred.folded_nodes;
  plan->removed_nodes = g.remove_dead_nodes();
  std::string backend_name = plan->backend->name();
  plan->fusion = apply_fusions(g, inferred.infos, options.disabled_fusions, [&](const Node& fused) {
    return OpRegistry::get().supports(fused, backend_name);
  });

  for (auto& decl : g.inputs) plan->input_slots.push_back(add_slot(*plan, decl.name, inferred.infos.at(decl.name)));
  lower(*plan, inferred.infos, options);
  for (auto& decl : g.outputs) {
    int slot = add_slot(*plan, decl.name, inferred.infos.at(decl.name));
    auto c = g.constants.find(decl.name);
    if (c != g.constants.end() && !plan->slots[slot].is_constant) {
      plan->slots[slot].is_constant = true;
      plan->slots[slot].constant = plan->backend->constant_data(c->second);
    }
    plan->output_slots.push_back(slot);
  }
  plan_arena(*plan);
  plan->arena = plan->backend->allocate(std::max<size_t>(plan->arena_bytes, 1));
  bind_contexts(*plan);
  return plan;
}

}  // namespace ie
