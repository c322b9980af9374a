// Engine and Session: the public face over loader, planner and executor.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>

#include "engine/api/model_config.h"
#include "engine/api/session_impl.h"
#include "engine/core/parallel.h"
#include "engine/executor/executor.h"
#include "engine/ir/preprocess.h"
#include "engine/loader/onnx_loader.h"

namespace ie {

namespace {

constexpr size_t kMaxCachedPlans = 8;

std::set<std::string> disabled_fusions(const Options& options) {
  std::set<std::string> names(options.disabled_fusions.begin(), options.disabled_fusions.end());
  if (!options.fuse) names.insert("all");
  if (const char* env = std::getenv("IE_DISABLE_FUSIONS")) {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ','))
      if (!item.empty()) names.insert(item);
  }
  return names;
}

constexpr int64_t kMaxBoundValueElements = 4096;

// Plan-cache key: every input's shape, plus the bytes of inputs whose values are bound at plan time.
std::string plan_key(const std::map<std::string, Shape>& shapes, const BoundValues& bound) {
  std::string key;
  for (auto& [name, shape] : shapes) key += name + shape_to_string(shape) + ";";
  for (auto& [name, t] : bound) key += name + "=" + std::string(static_cast<const char*>(t.data()), t.nbytes()) + ";";
  return key;
}

void check_options(const Options& o) {
  if (o.batch < 0) fail(ErrorKind::Usage, "batch must be >= 0, got ", o.batch);
  for (int d : o.devices)
    if (d < 0) fail(ErrorKind::Usage, "devices: ", d, " is not a device number (0, 1, ...)");
  check_cpu_threads(o.threads, "threads");
  if (o.limits.max_arena_bytes == 0 || o.limits.max_tensor_bytes == 0 || !(o.limits.max_op_flops > 0))
    fail(ErrorKind::Usage, "limits must be positive (max_arena_bytes, max_tensor_bytes, max_op_flops)");
}

// Shapes to plan for when only a batch size is known: every symbolic dim 0 of an input becomes `batch`.
std::map<std::string, Shape> shapes_for_batch(const Graph& g, int64_t batch) {
  std::map<std::string, Shape> shapes;
  for (auto& d : g.inputs) {
    Shape s = d.dims;
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] < 0) {
        if (i != 0)
          fail_input("input '", d.name, "' has a symbolic dimension ", i, " besides the batch; give full shapes");
        s[i] = batch;
      }
    shapes[d.name] = s;
  }
  return shapes;
}

}  // namespace

Engine Engine::load(const ModelConfig& config, const Options& options, bool with_preprocessing) {
  Graph g = load_onnx(config.onnx);
  if (with_preprocessing && !config.raw_input.name.empty()) prepend_preprocessing(g, config);
  return from_graph(std::move(g), options);
}

Engine Engine::load(const std::string& path, const Options& options) { return from_graph(load_onnx(path), options); }

Engine Engine::from_graph(Graph graph, const Options& options) {
  check_options(options);
  const std::string path = graph.source;
  auto impl = std::make_shared<Impl>();
  impl->graph = std::move(graph);
  impl->options = options;
  impl->backend_name = resolve_backend_name(options.backend);
  impl->plan_options.disabled_fusions = disabled_fusions(options);
  impl->plan_options.precision = options.precision;
  impl->plan_options.store = std::make_shared<ConstantStore>();
  impl->plan_options.limits = options.limits;
  impl->plan_options.graphs = options.cuda_graphs;
  // Each backend declares the modes it implements; anything else is refused rather than silently run in fp32.
  check_precision(impl->backend_name, options.precision);
  std::string reason;
  if (!backend_available(impl->backend_name, &reason))
    fail(impl->backend_name == "cpu" ? ErrorKind::Usage : ErrorKind::Device, "backend '", impl->backend_name,
         "' cannot run here: ", reason);
  check_devices(impl->backend_name, options.devices);
  for (auto& node : impl->graph.nodes)
    if (!OpRegistry::get().find(node.domain, node.op_type))
      fail_unsupported(path, ": ", node.label(), ": op '", node.op_type, "' is not supported by this engine");
  Engine engine(impl);
  if (options.batch > 0) {
    Session warm = engine.create_session();  // validates that the model plans at this batch size
    (void)warm;
  }
  return engine;
}

Session Engine::create_session() const { return create_session(0); }

size_t Engine::device_count() const { return std::max<size_t>(1, m_impl->options.devices.size()); }

Session Engine::create_session(size_t index) const {
  if (index >= device_count())
    fail(ErrorKind::Usage, "device index ", index, " is out of range: the engine serves on ", device_count(), " device",
         device_count() > 1 ? "s" : "");
  auto impl = std::make_shared<Session::Impl>();
  impl->engine = m_impl;
  impl->backend = m_impl->new_backend(index);
  if (nvtx_requested()) impl->annotator = impl->backend->make_step_annotator();
  if (m_impl->options.batch > 0) {
    auto shapes = shapes_for_batch(m_impl->graph, m_impl->options.batch);
    impl->plans[plan_key(shapes, {})] = build_plan(m_impl->graph, shapes, impl->backend, m_impl->plan_options);
  }
  return Session(impl);
}

const std::vector<TensorDecl>& Engine::inputs() const { return m_impl->graph.inputs; }
const std::vector<TensorDecl>& Engine::outputs() const { return m_impl->graph.outputs; }
std::string Engine::backend() const { return m_impl->backend_name; }

std::string Engine::describe(const std::map<std::string, std::vector<int64_t>>& input_shapes) const {
  auto shapes = input_shapes;
  if (shapes.empty()) shapes = shapes_for_batch(m_impl->graph, m_impl->options.batch > 0 ? m_impl->options.batch : 1);
  auto plan = build_plan(m_impl->graph, shapes, m_impl->new_backend(), m_impl->plan_options);
  return describe_plan(*plan);
}

Session::Impl::~Impl() { free_staged(); }

void Session::Impl::free_staged() {
  for (auto& set : staged)
    for (auto& [name, ptr] : set.device) backend->deallocate(ptr);
  staged.clear();
}

Plan& Session::Impl::plan_for(const std::map<std::string, Tensor>& inputs) {
  Impl& s = *this;
  std::map<std::string, Shape> shapes;
  for (auto& [name, t] : inputs) {
    if (t.empty()) fail_input("input '", name, "' has no data");
    shapes[name] = t.shape();
  }
  // Unknown names first: a misspelt input should be reported by the name the caller used.
  check_input_names(s.engine->graph.inputs, {}, inputs);
  for (auto& d : s.engine->graph.inputs) {
    auto in = inputs.find(d.name);
    if (in == inputs.end()) fail_input("input '", d.name, "' was not given");
    for (size_t i = 0; i < d.dims.size() && i < in->second.rank(); ++i)
      if (d.dims[i] < 0 && in->second.dim(i) == 0)
        fail_input("input '", d.name, "' is empty (shape ", shape_to_string(in->second.shape()), "): dimension ", i,
                   i == 0 ? " (the batch) must be at least 1" : " must be at least 1");
  }
  auto bound_values = [&] {
    BoundValues bound;
    for (auto& name : s.value_inputs)
      if (inputs.count(name)) bound[name] = inputs.at(name);
    return bound;
  };
  std::string key = plan_key(shapes, bound_values());
  auto it = s.plans.find(key);
  if (it == s.plans.end()) {
    for (auto& d : s.engine->graph.inputs)
      if (inputs.at(d.name).dtype() != d.dtype)
        fail_input("input '", d.name, "': expected dtype ", dtype_name(d.dtype), ", got ",
                   dtype_name(inputs.at(d.name).dtype()));
    if (s.plans.size() >= kMaxCachedPlans) s.plans.erase(s.plans.begin());
    std::unique_ptr<Plan> plan;
    while (!plan) {
      try {
        plan = build_plan(s.engine->graph, shapes, s.backend, s.engine->plan_options, bound_values());
      } catch (const NeedsValue& e) {
        // A graph input used as a shape (Reshape's shape, Resize's sizes ...): bind its value and plan again.
        auto in = inputs.find(e.tensor());
        if (in == inputs.end() || s.value_inputs.count(e.tensor()) || in->second.numel() > kMaxBoundValueElements)
          throw;
        s.value_inputs.insert(e.tensor());
      }
    }
    key = plan_key(shapes, bound_values());
    it = s.plans.emplace(key, std::move(plan)).first;
  }
  return *it->second;
}

std::vector<Tensor> Session::run_ordered(const std::map<std::string, Tensor>& inputs) {
  Impl& s = *m_impl;
  Plan& plan = s.plan_for(inputs);
  s.current = &plan;
  load_inputs(plan, inputs);
  run_steps(plan, s.observer, s.annotator.get());
  auto outs = fetch_outputs(plan);
  s.current = nullptr;
  return outs;
}

std::map<std::string, Tensor> Session::run(const std::map<std::string, Tensor>& inputs) {
  auto ordered = run_ordered(inputs);
  std::map<std::string, Tensor> named;
  const auto& outs = m_impl->engine->graph.outputs;
  for (size_t i = 0; i < outs.size(); ++i) named[outs[i].name] = ordered[i];
  return named;
}

void Session::set_observer(StepObserver observer) { m_impl->observer = std::move(observer); }

Tensor Session::peek(const std::string& tensor_name) const {
  Plan* plan = m_impl->current;
  if (!plan) fail(ErrorKind::Usage, "Session::peek is only valid inside a step observer");
  auto it = plan->slot_of.find(tensor_name);
  if (it == plan->slot_of.end()) fail(ErrorKind::Usage, "tensor '", tensor_name, "' does not exist in the plan");
  return fetch_slot(*plan, it->second);
}

}  // namespace ie
