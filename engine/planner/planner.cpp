#include <algorithm>

#include "engine/core/checked_math.h"
#include "engine/core/parallel.h"
#include "engine/planner/plan.h"
#include "engine/planner/memory_plan.h"
#include "engine/planner/plan_limits.h"
#include "engine/planner/precision_pass.h"
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

std::string describe_inputs(const std::vector<TensorInfo>& infos) {
  std::string s;
  for (auto& i : infos) s += (s.empty() ? "" : ", ") + std::string(dtype_name(i.dtype)) + shape_to_string(i.shape);
  return s;
}

// One node's kernel from the first of `sets` that accepts it; each set that passes leaves its reason.
struct KernelChoice {
  std::unique_ptr<Kernel> kernel;
  std::string set;
  std::vector<std::string> declined;
};

KernelChoice choose_kernel(KernelInit& init, const std::vector<std::string>& sets) {
  KernelChoice choice;
  const Node& node = init.node;
  for (auto& set : sets) {
    const KernelFactory* factory = OpRegistry::get().kernel(node.domain, node.op_type, set);
    if (!factory) {
      choice.declined.push_back(set + ": no kernel for " + node.op_type);
      continue;
    }
    if (!OpRegistry::get().supports(node, set)) {
      choice.declined.push_back(set + ": does not support this node's attributes");
      continue;
    }
    std::string why;
    init.declined = &why;
    choice.kernel = (*factory)(init);
    init.declined = nullptr;
    if (choice.kernel) {
      choice.set = set;
      return choice;
    }
    choice.declined.push_back(set + ": " + (why.empty() ? "declined " + describe_inputs(init.inputs) : why));
  }
  return choice;
}

class Lowering {
 public:
  Lowering(Plan& plan, std::map<std::string, TensorInfo>& infos, const PlanOptions& options)
      : m_plan(plan), m_infos(infos), m_options(options) {}

  void run() {
    for (auto& node : m_plan.graph.nodes) lower(node);
  }

 private:
  // Creates the node's step; a node no kernel set can run is an error naming it and every set's reason.
  void lower(const Node& node) {
    Step step;
    step.node = node;
    std::vector<TensorInfo> in_infos, out_infos;
    std::vector<const Tensor*> constants;
    for (auto& in : node.inputs) {
      in_infos.push_back(in.empty() ? TensorInfo{} : m_infos.at(in));
      auto c = m_plan.graph.constants.find(in);
      constants.push_back(in.empty() || c == m_plan.graph.constants.end() ? nullptr : &c->second);
    }
    for (auto& out : node.outputs) out_infos.push_back(out.empty() ? TensorInfo{} : m_infos.at(out));
    KernelInit init{node, in_infos, constants, out_infos, m_plan.graph.opset};
    init.precision = m_options.precision;
    init.backend_state = m_plan.backend->kernel_state();
    init.backend = m_plan.backend.get();
    init.store = m_plan.store.get();
    KernelChoice choice = choose_kernel(init, m_plan.kernel_sets);
    // Declined in the storage type: in float32 between Casts when a set runs the node so (a fused node keeps
    // its fusion), else as the nodes a fused node replaced, else in float32 anyway to get every set's reason.
    if (!choice.kernel && !node.replaced.empty() && !runs_in_float32(init))
      return unfuse(node, choice.declined);
    if (!choice.kernel && run_in_float32(node, choice.declined)) return;
    if (!choice.kernel) {
      std::string reasons;
      for (auto& d : choice.declined) reasons += "; " + d;
      fail_unsupported(m_plan.graph.source, ": ", node.label(), ": no kernel of the ", m_plan.backend->name(),
                       " backend runs it (inputs ", describe_inputs(in_infos), reasons, ")");
    }
    step.kernel = std::move(choice.kernel);
    step.kernel_set = choice.set;
    step.declined = std::move(choice.declined);
    for (auto& in : node.inputs) step.inputs.push_back(in.empty() ? -1 : input_slot(in));
    for (auto& out : node.outputs) step.outputs.push_back(out.empty() ? -1 : add_slot(m_plan, out, m_infos.at(out)));
    step.workspace_bytes = step.kernel->workspace_bytes();
    m_plan.steps.push_back(std::move(step));
  }

  // Whether a kernel set would run the node with its storage-typed tensors in float32 (a probe: the kernel made
  // here is dropped; run_in_float32 makes the real one). False outside the fp16/bf16 modes.
  bool runs_in_float32(const KernelInit& init) {
    const DType storage = storage_dtype(m_options.precision);
    if (storage == DType::Float32) return false;
    KernelInit wide = init;
    std::vector<Tensor> widened(init.inputs.size());
    bool any = false;
    for (size_t i = 0; i < wide.inputs.size(); ++i) {
      if (wide.inputs[i].dtype != storage) continue;
      any = true;
      wide.inputs[i].dtype = DType::Float32;
      if (wide.constants[i]) {
        widened[i] = converted_constant(*m_plan.store, init.node.inputs[i], *wide.constants[i], DType::Float32);
        wide.constants[i] = &widened[i];
      }
    }
    for (auto& out : wide.outputs)
      if (out.dtype == storage) any = true, out.dtype = DType::Float32;
    return any && choose_kernel(wide, m_plan.kernel_sets).kernel != nullptr;
  }

  // In the fp16/bf16 modes, a node that no kernel set runs in the storage type runs in float32 between Casts:
  // activations are cast at run time, constants once on the host. False when the node has nothing to cast.
  bool run_in_float32(const Node& node, std::vector<std::string>& declined) {
    const DType storage = storage_dtype(m_options.precision);
    if (storage == DType::Float32) return false;
    Node wide = node;
    std::vector<Node> after;
    bool any = false;
    for (auto& in : wide.inputs) {
      if (in.empty() || m_infos.at(in).dtype != storage) continue;
      any = true;
      std::string wide_name = in + "/float32";
      if (!m_infos.count(wide_name)) {
        m_infos[wide_name] = TensorInfo{DType::Float32, m_infos.at(in).shape};
        auto c = m_plan.graph.constants.find(in);
        if (c != m_plan.graph.constants.end())
          m_plan.graph.constants[wide_name] =
              converted_constant(*m_plan.store, in, c->second, DType::Float32);
        else
          lower_cast(make_cast(in, wide_name, DType::Float32));
      }
      in = wide_name;
    }
    for (auto& out : wide.outputs) {
      if (out.empty() || m_infos.at(out).dtype != storage) continue;
      any = true;
      std::string wide_name = out + "/float32";
      m_infos[wide_name] = TensorInfo{DType::Float32, m_infos.at(out).shape};
      after.push_back(make_cast(wide_name, out, storage));
      out = wide_name;
    }
    if (!any) return false;
    size_t wide_index = m_plan.steps.size();
    lower(wide);
    // The float32 step says why it runs wide: what each set said of the storage type.
    for (auto& d : declined)
      m_plan.steps[wide_index].declined.push_back(d + " (in " + dtype_name(storage) + "; runs in float32)");
    for (auto& cast : after) lower_cast(cast);
    return true;
  }

  // A fused node no kernel set runs lowers as the nodes it replaced, each step saying why.
  void unfuse(const Node& fused, const std::vector<std::string>& declined) {
    const size_t first = m_plan.steps.size();
    for (const Node& part : fused.replaced) {
      bool known = true;
      for (auto& out : part.outputs) known &= out.empty() || m_infos.count(out);
      if (!known) infer_part(part);
      lower(part);
    }
    for (size_t i = first; i < m_plan.steps.size(); ++i)
      for (auto& d : declined)
        m_plan.steps[i].declined.push_back(fused.domain + "." + fused.op_type + " " + d + " (runs unfused)");
  }

  // Types and shapes of a part's outputs: intermediates of a fused node are not in the graph any more.
  void infer_part(const Node& part) {
    std::vector<TensorInfo> in_infos;
    std::vector<const Tensor*> constants;
    for (auto& in : part.inputs) {
      in_infos.push_back(in.empty() ? TensorInfo{} : m_infos.at(in));
      auto c = m_plan.graph.constants.find(in);
      constants.push_back(in.empty() || c == m_plan.graph.constants.end() ? nullptr : &c->second);
    }
    InferContext ctx = infer_node(part, in_infos, constants, m_plan.graph.opset);
    for (size_t i = 0; i < part.outputs.size(); ++i)
      if (!part.outputs[i].empty() && !m_infos.count(part.outputs[i])) m_infos[part.outputs[i]] = ctx.outputs[i];
  }

  void lower_cast(const Node& cast) {
    lower(cast);
    ++m_plan.precision_casts;
  }

  int input_slot(const std::string& name) {
    int slot = add_slot(m_plan, name, m_infos.at(name));
    auto c = m_plan.graph.constants.find(name);
    if (c != m_plan.graph.constants.end() && !m_plan.slots[slot].is_constant) {
      m_plan.slots[slot].is_constant = true;
      m_plan.slots[slot].constant = m_plan.backend->constant_data(c->second);
    }
    return slot;
  }

  Plan& m_plan;
  std::map<std::string, TensorInfo>& m_infos;
  const PlanOptions& m_options;
};

// Lifetimes -> arena offsets. A view op's output shares its input's buffer, so both get the root's offset.
void plan_arena(Plan& plan, const Limits& limits) {
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
    r.bytes = checked_bytes(plan.slots[slot].info.shape, plan.slots[slot].info.dtype, "tensor '" + name + "'");
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
  auto largest = std::max_element(requests.begin(), requests.end(),
                                  [](const BufferRequest& a, const BufferRequest& b) { return a.bytes < b.bytes; });
  if (largest != requests.end()) check_arena_limit(mp.arena_bytes, largest->name, largest->bytes, limits);
  plan.arena_bytes = mp.arena_bytes;
  plan.tensor_bytes = mp.total_bytes;
  for (size_t k = 0; k < requests.size(); ++k) {
    if (owners[k] >= 0) plan.slots[owners[k]].offset = mp.offsets[k];
    else plan.steps[-1 - owners[k]].workspace_offset = mp.offsets[k];
  }
  for (auto& [slot, r] : lifetimes) plan.slots[slot].offset = plan.slots[find_root(slot)].offset;
}

// A view step whose output the arena placed on its input's bytes would launch nothing (its kernel skips the copy
// when the pointers match): it leaves the schedule, so the step count, the profile and a recorded graph hold only
// work. A view that copies (a constant input) stays a step.
void elide_views(Plan& plan) {
  std::vector<Step> kept;
  for (Step& step : plan.steps) {
    const OpDef* def = OpRegistry::get().find(step.node.domain, step.node.op_type);
    const int at = def ? def->view_of_input : -1;
    int in = -1, out = -1;
    if (at >= 0 && static_cast<size_t>(at) < step.inputs.size() && step.outputs.size() == 1 && !step.workspace_bytes) {
      in = step.inputs[at];
      out = step.outputs[0];
    }
    const bool alias =
        in >= 0 && out >= 0 && !plan.slots[in].is_constant && plan.slots[in].offset == plan.slots[out].offset;
    if (alias)
      plan.views.push_back(ElidedView{step.node, in, out});
    else
      kept.push_back(std::move(step));
  }
  plan.steps = std::move(kept);
}

void bind_contexts(Plan& plan) {
  for (auto& step : plan.steps) {
    step.ctx = KernelContext{};
    for (int s : step.inputs)
      step.ctx.inputs.push_back(
          s < 0 ? TensorRef{} : TensorRef{plan.slot_data(s), plan.slots[s].info.dtype, plan.slots[s].info.shape});
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
  plan->backend->make_current();  // kernel factories allocate and query on the backend's device
  ThreadPoolScope pool(plan->backend->thread_pool());  // and prepare weights on its threads
  plan->graph = model;
  plan->onnx_nodes = model.nodes.size();
  plan->input_shapes = input_shapes;
  Graph& g = plan->graph;
  for (auto& entry : bound) {
    const std::string& name = entry.first;  // a named variable: lambdas may not capture structured bindings (C++17)
    const Tensor& value = entry.second;
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
  // Before fusion and lowering: kernel factories may build plan-time tables as large as a node's output.
  check_node_limits(g, inferred.infos, options.limits);
  const std::vector<std::string> sets =
      options.kernel_sets.empty() ? plan->backend->kernel_sets() : options.kernel_sets;
  const FusionContext::Accept accept = [&](const Node& fused) { return OpRegistry::get().supports_any(fused, sets); };
  plan->fusion = apply_fusions(g, inferred.infos, options.disabled_fusions, accept);
  plan->precision = options.precision;
  plan->graphs = options.graphs;
  plan->kernel_sets = sets;
  plan->store = options.store ? options.store : std::make_shared<ConstantStore>();
  plan->precision_casts = lower_precision(g, options.precision, *plan->store, plan->input_shapes, inferred.infos);
  // Rules over whole chains, Casts included, see the graph as it will run.
  const FusionReport late = apply_fusions(g, inferred.infos, options.disabled_fusions, accept, true);
  for (auto& [rule, count] : late.applied) plan->fusion.applied[rule] += count;

  for (auto& decl : g.inputs) plan->input_slots.push_back(add_slot(*plan, decl.name, inferred.infos.at(decl.name)));
  Lowering(*plan, inferred.infos, options).run();
  for (auto& decl : g.outputs) {
    int slot = add_slot(*plan, decl.name, inferred.infos.at(decl.name));
    auto c = g.constants.find(decl.name);
    if (c != g.constants.end() && !plan->slots[slot].is_constant) {
      plan->slots[slot].is_constant = true;
      plan->slots[slot].constant = plan->backend->constant_data(c->second);
    }
    plan->output_slots.push_back(slot);
  }
  plan_arena(*plan, options.limits);
  elide_views(*plan);
  plan->arena = plan->backend->allocate(std::max<size_t>(plan->arena_bytes, 1));
  bind_contexts(*plan);
  return plan;
}

}  // namespace ie
