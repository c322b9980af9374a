#include "gpu_test_util.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>

#include "engine/backend/backend.h"
#include "engine/core/dtype_dispatch.h"
#include "engine/executor/executor.h"
#include "engine/planner/plan.h"

namespace ie::test {

bool gpu_available() {
  static int state = -1;
  if (state < 0) {
    std::string reason;
    state = backend_available(kernel_set::kCudaReference, &reason) ? 1 : 0;
    if (!state) std::cerr << "GPU tests skipped: " << reason << "\n";
  }
  return state == 1;
}

std::string Path::label() const {
  std::string s = backend;
  if (!kernel_set.empty()) s += "[" + kernel_set + "]";
  s += std::string(" ") + precision_name(precision);
  if (!fuse) s += " unfused";
  return s;
}

std::string kernel_set_serving(const Graph& g, const std::map<std::string, Shape>& shapes, Precision p,
                               const std::string& op_type, bool last) {
  PlanOptions options;
  options.precision = p;
  auto plan = build_plan(g, shapes, make_backend(kernel_set::kCuda, Options{}), options);
  std::string set = "(no " + op_type + " step)";
  for (auto& step : plan->steps)
    if (step.node.op_type == op_type) {
      set = step.kernel_set;
      if (!last) break;
    }
  return set;
}

std::vector<Tensor> run_graph_on(const Path& path, const Graph& g, const std::map<std::string, Tensor>& feeds) {
  std::map<std::string, Shape> shapes;
  for (auto& [name, t] : feeds) shapes[name] = t.shape();
  Options opts;
  opts.precision = path.precision;
  PlanOptions popts;
  popts.precision = path.precision;
  if (!path.fuse) popts.disabled_fusions = {"all"};
  if (!path.kernel_set.empty()) popts.kernel_sets = {path.kernel_set};
  auto plan = build_plan(g, shapes, make_backend(path.backend, opts), popts);
  load_inputs(*plan, feeds);
  run_steps(*plan, nullptr);
  return fetch_outputs(*plan);
}

std::vector<Tensor> run_node_on(const Path& path, const Node& node, const std::vector<Tensor>& inputs,
                                const std::vector<bool>& constant, int64_t opset) {
  Graph g;
  g.opset = opset;
  g.source = "test graph";
  g.nodes = {node};
  std::map<std::string, Tensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (node.inputs[i].empty() || inputs[i].empty()) continue;
    if (i < constant.size() && constant[i]) {
      g.constants[node.inputs[i]] = inputs[i];
      continue;
    }
    TensorDecl d;
    d.name = node.inputs[i];
    d.dtype = inputs[i].dtype();
    d.dims = inputs[i].shape();
    d.dim_names.assign(d.dims.size(), "");
    g.inputs.push_back(d);
    feeds[d.name] = inputs[i];
  }
  for (auto& o : node.outputs) {
    TensorDecl d;
    d.name = o;
    d.has_shape = false;
    g.outputs.push_back(d);
  }
  Path single = path;
  single.fuse = false;
  return run_graph_on(single, g, feeds);
}

std::vector<Tensor> run_node_on(const std::string& backend, const Node& node, const std::vector<Tensor>& inputs,
                                const std::vector<bool>& constant, int64_t opset, Precision precision) {
  return run_node_on(Path{backend, "", precision}, node, inputs, constant, opset);
}

ScopedEnv::ScopedEnv(const char* name, const std::string& value) : m_name(name) {
  const char* old = std::getenv(name);
  m_had = old != nullptr;
  if (old) m_old = old;
  setenv(name, value.c_str(), 1);
}

ScopedEnv::~ScopedEnv() {
  if (m_had)
    setenv(m_name, m_old.c_str(), 1);
  else
    unsetenv(m_name);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TensorDecl inferred_output(const std::string& name) {
  TensorDecl d;
  d.name = name;
  d.has_shape = false;
  return d;
}

Tensor random_uniform(std::vector<int64_t> shape, unsigned seed, float lo, float hi) {
  Tensor t(DType::Float32, std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = dist(gen);
  return t;
}

double tolerance_ratio(const Tensor& got, const Tensor& want, double atol, double rtol) {
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.shape() == want.shape());
  double worst = 0;
  dispatch_all(got.dtype(), "tolerance_ratio", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < got.numel(); ++i) {
      double a = static_cast<double>(got.data_as<T>()[i]), b = static_cast<double>(want.data_as<T>()[i]);
      if (std::isnan(a) != std::isnan(b)) {
        worst = INFINITY;
        return;
      }
      if (std::isnan(a)) continue;
      worst = std::max(worst, std::abs(a - b) / (atol + rtol * std::abs(b)));
    }
  });
  return worst;
}

}  // namespace ie::test
