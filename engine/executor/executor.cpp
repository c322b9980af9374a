#include "engine/executor/executor.h"

#include <cstring>
#include <set>

#include "engine/core/parallel.h"

namespace ie {

void check_input_names(const std::vector<TensorDecl>& declared, const std::set<std::string>& also_allowed,
                       const std::map<std::string, Tensor>& inputs) {
  for (auto& [name, t] : inputs) {
    bool known = also_allowed.count(name) != 0;
    for (auto& d : declared) known |= d.name == name;
    if (known) continue;
    std::string names;
    for (auto& d : declared) names += (names.empty() ? "'" : ", '") + d.name + "'";
    fail_input("'", name, "' is not an input of the model (inputs: ", names, ")");
  }
}

void load_inputs(Plan& plan, const std::map<std::string, Tensor>& inputs) {
  check_input_names(plan.graph.inputs, plan.bound_inputs, inputs);
  for (size_t i = 0; i < plan.graph.inputs.size(); ++i) {
    const TensorDecl& decl = plan.graph.inputs[i];
    auto it = inputs.find(decl.name);
    if (it == inputs.end()) fail_input("input '", decl.name, "' was not given");
    const Tensor& t = it->second;
    const Slot& slot = plan.slots[plan.input_slots[i]];
    if (t.dtype() != slot.info.dtype)
      fail_input("input '", decl.name, "': expected dtype ", dtype_name(slot.info.dtype), ", got ",
                 dtype_name(t.dtype()));
    if (t.shape() != slot.info.shape)
      fail_input("input '", decl.name, "': expected shape ", shape_to_string(slot.info.shape), ", got ",
                 shape_to_string(t.shape()));
    plan.backend->copy_in(plan.slot_data(plan.input_slots[i]), t.data(), t.nbytes());
  }
}

namespace {

void run_each_step(Plan& plan, const StepObserver& observer, StepTimer* timer) {
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    Step& step = plan.steps[i];
    try {
      if (timer) timer->start(i, step.node.name);
      step.kernel->run(step.ctx);
      if (timer) timer->stop(i);
    } catch (const Error& e) {
      throw Error(e.kind(), "step " + std::to_string(i) + " " + step.node.label() + ": " + e.what());
    }
    if (observer) {
      StepEvent ev;
      ev.index = i;
      ev.name = step.node.name;
      ev.op = step.node.domain.empty() ? step.node.op_type : step.node.domain + "." + step.node.op_type;
      ev.covers = step.node.covers.empty() ? std::vector<std::string>{step.node.name} : step.node.covers;
      ev.output_names = step.node.outputs;
      observer(ev);
    }
  }
}

}  // namespace

void run_steps(Plan& plan, const StepObserver& observer, StepTimer* timer) {
  if (plan.steps.empty()) return;  // every node was a view of a graph input: nothing to launch or record
  plan.backend->make_current();    // kernels launch on the calling thread's current device
  ThreadPoolScope pool(plan.backend->thread_pool());
  // Replay needs the steps as one unit: an observer or a per-step timer runs them one by one.
  const bool replay = plan.graphs && !plan.graph_off && !observer && !timer;
  if (replay && plan.recording) {
    plan.recording->launch();
    return;
  }
  // The first run goes step by step (kernels that set themselves up on first use do so outside a recording).
  if (replay && plan.eager_runs > 0) {
    plan.recording = plan.backend->capture([&] { run_each_step(plan, {}, nullptr); });
    if (plan.recording) {
      plan.recording->launch();
      return;
    }
    plan.graph_off = true;  // nothing ran: go step by step, now and from now on
  }
  run_each_step(plan, observer, timer);
  ++plan.eager_runs;
}

Tensor fetch_slot(Plan& plan, int slot) {
  const Slot& s = plan.slots[slot];
  Tensor t = Tensor::uninitialized(s.info.dtype, s.info.shape);
  plan.backend->synchronize();
  if (s.is_constant) {
    auto c = plan.graph.constants.find(s.name);
    if (c != plan.graph.constants.end()) return c->second.clone();
  }
  plan.backend->copy_out(t.data(), plan.slot_data(slot), t.nbytes());
  return t;
}

void fetch_output_async(Plan& plan, size_t index, void* host_dst) {
  const int slot = plan.output_slots.at(index);
  const Slot& s = plan.slots[slot];
  const size_t bytes = static_cast<size_t>(numel_range(s.info.shape, 0, s.info.shape.size())) * dtype_size(s.info.dtype);
  if (s.is_constant) {
    auto c = plan.graph.constants.find(s.name);
    if (c != plan.graph.constants.end()) {
      std::memcpy(host_dst, c->second.data(), bytes);
      return;
    }
  }
  plan.backend->copy_out_async(host_dst, plan.slot_data(slot), bytes);
}

std::vector<Tensor> fetch_outputs(Plan& plan) {
  std::vector<Tensor> outs;
  for (int s : plan.output_slots) outs.push_back(fetch_slot(plan, s));
  return outs;
}

}  // namespace ie
