// Session timing: per-step profiles (Session::profile) and phase-split benchmark runs (run_timed, run_staged).
// Both use the backend's StepTimer, so GPU times come from CUDA events on the session's stream and CPU times from
// a steady clock; neither touches the plan, so the timed schedule is the one ordinary runs execute.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "engine/api/session_impl.h"
#include "engine/executor/executor.h"

namespace ie {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// "ie.FusedConv[Relu,MaxPool]": the op with what a fused step folded into it.
std::string op_label(const Node& node) {
  std::string op = node.domain.empty() ? node.op_type : node.domain + "." + node.op_type;
  std::string extra;
  for (const char* attr : {"activation", "pool"}) {
    std::string v = node.attrs.get_string(attr, "");
    if (!v.empty()) extra += (extra.empty() ? "" : ",") + v;
  }
  return extra.empty() ? op : op + "[" + extra + "]";
}

std::vector<TensorInfo> slot_infos(const Plan& plan, const std::vector<int>& slots) {
  std::vector<TensorInfo> infos;
  for (int s : slots) infos.push_back(s >= 0 ? plan.slots[s].info : TensorInfo{});
  return infos;
}

StepProfile describe_step(const Plan& plan, size_t index, const std::vector<double>& samples) {
  const Step& step = plan.steps[index];
  StepProfile p;
  p.index = index;
  p.name = step.node.name;
  p.op = op_label(step.node);
  p.kernel_set = step.kernel_set;
  p.covers = step.node.covers.empty() ? std::vector<std::string>{step.node.name} : step.node.covers;
  auto ins = slot_infos(plan, step.inputs);
  auto outs = slot_infos(plan, step.outputs);
  for (auto& i : ins) p.input_shapes.push_back(i.shape);
  for (auto& o : outs) p.output_shapes.push_back(o.shape);
  OpCost cost = OpRegistry::get().cost(step.node, ins, outs);
  p.flops = cost.flops;
  p.bytes = cost.bytes;
  p.median_ms = median_of(samples);
  p.min_ms = *std::min_element(samples.begin(), samples.end());
  p.max_ms = *std::max_element(samples.begin(), samples.end());
  return p;
}

StepTimer& phase_timer(Session::Impl& s) {
  if (!s.phase_timer) s.phase_timer = s.backend->make_step_timer();
  return *s.phase_timer;
}

}  // namespace

ProfileReport Session::profile(const std::map<std::string, Tensor>& inputs, int warmup, int iterations) {
  if (warmup < 0) fail(ErrorKind::Usage, "profile: warmup must be >= 0, got ", warmup);
  if (iterations < 1) fail(ErrorKind::Usage, "profile: iterations must be >= 1, got ", iterations);
  Impl& s = *m_impl;
  Plan& plan = s.plan_for(inputs);
  load_inputs(plan, inputs);
  for (int w = 0; w < warmup; ++w) run_steps(plan, {}, s.annotator.get());
  s.backend->synchronize();
  auto timer = s.backend->make_step_timer();
  std::vector<std::vector<double>> samples(plan.steps.size());
  for (int it = 0; it < iterations; ++it) {
    run_steps(plan, {}, timer.get());
    std::vector<double> ms = timer->elapsed_ms();
    for (size_t i = 0; i < samples.size() && i < ms.size(); ++i) samples[i].push_back(ms[i]);
  }
  ProfileReport report;
  report.backend = s.backend->name();
  report.device = s.backend->device_name();
  report.iterations = iterations;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    if (samples[i].empty())
      fail(ErrorKind::Device, "profile: the ", report.backend, " timer gave no time for step ", i);
    report.steps.push_back(describe_step(plan, i, samples[i]));
    report.total_ms += report.steps.back().median_ms;
  }
  return report;
}

std::vector<Tensor> Session::run_timed(const std::map<std::string, Tensor>& inputs, RunTiming* timing) {
  Impl& s = *m_impl;
  auto start = Clock::now();
  Plan& plan = s.plan_for(inputs);
  StepTimer& timer = phase_timer(s);
  s.current = &plan;
  timer.start(0, "load inputs");
  load_inputs(plan, inputs);
  timer.stop(0);
  timer.start(1, "compute");
  run_steps(plan, s.observer, s.annotator.get());
  timer.stop(1);
  timer.start(2, "fetch outputs");
  std::vector<Tensor> outs = fetch_outputs(plan);
  timer.stop(2);
  s.current = nullptr;
  std::vector<double> ms = timer.elapsed_ms();
  if (timing) {
    *timing = RunTiming{ms.at(0), ms.at(1), ms.at(2), ms_since(start)};
  }
  return outs;
}

Tensor Session::allocate_host_tensor(DType dtype, std::vector<int64_t> shape) {
  Tensor probe(dtype, {0});  // validates the dtype
  size_t bytes = static_cast<size_t>(checked_numel(shape, "host tensor")) * dtype_size(dtype);
  std::shared_ptr<void> buffer = m_impl->backend->allocate_host(bytes);
  std::memset(buffer.get(), 0, bytes);
  return Tensor(dtype, std::move(shape), std::move(buffer));
}

size_t Session::stage_inputs(const std::map<std::string, Tensor>& inputs) {
  Impl& s = *m_impl;
  Plan& plan = s.plan_for(inputs);
  load_inputs(plan, inputs);  // validates names, dtypes and shapes
  StagedInputs set;
  set.host = inputs;
  try {
    for (size_t i = 0; i < plan.graph.inputs.size(); ++i) {
      const std::string& name = plan.graph.inputs[i].name;
      const Tensor& t = inputs.at(name);
      void* d = s.backend->allocate(t.nbytes());
      set.device[name] = d;
      s.backend->copy_in(d, t.data(), t.nbytes());
    }
    s.backend->synchronize();
  } catch (...) {
    for (auto& [name, ptr] : set.device) s.backend->deallocate(ptr);
    throw;
  }
  s.staged.push_back(std::move(set));
  return s.staged.size() - 1;
}

RunTiming Session::run_staged(size_t index) {
  Impl& s = *m_impl;
  if (index >= s.staged.size())
    fail(ErrorKind::Usage, "run_staged: no staged input set ", index, " (", s.staged.size(), " staged)");
  auto start = Clock::now();
  const StagedInputs& set = s.staged[index];
  Plan& plan = s.plan_for(set.host);
  StepTimer& timer = phase_timer(s);
  timer.start(0, "load staged inputs");
  for (size_t i = 0; i < plan.graph.inputs.size(); ++i) {
    const std::string& name = plan.graph.inputs[i].name;
    s.backend->copy_device(plan.slot_data(plan.input_slots[i]), set.device.at(name), set.host.at(name).nbytes());
  }
  timer.stop(0);
  timer.start(1, "compute");
  run_steps(plan, {}, s.annotator.get());
  timer.stop(1);
  std::vector<double> ms = timer.elapsed_ms();
  return RunTiming{ms.at(0), ms.at(1), 0.0, ms_since(start)};
}

void Session::clear_staged() {
  m_impl->backend->synchronize();
  m_impl->free_staged();
}

std::string Session::device_name() const { return m_impl->backend->device_name(); }

}  // namespace ie
