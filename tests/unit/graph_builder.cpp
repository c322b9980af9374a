#include "graph_builder.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/backend/backend.h"
#include "engine/core/dtype_dispatch.h"
#include "engine/executor/executor.h"
#include "engine/registry/node_runner.h"

namespace ie::test {

GraphBuilder::GraphBuilder(int64_t opset) {
  m_graph.opset = opset;
  m_graph.source = "test-graph";
}

GraphBuilder& GraphBuilder::input(const std::string& name, Shape dims, DType dtype) {
  TensorDecl d;
  d.name = name;
  d.dtype = dtype;
  for (int64_t v : dims) d.dim_names.push_back(v < 0 ? "batch" : "");
  d.dims = std::move(dims);
  m_graph.inputs.push_back(std::move(d));
  return *this;
}

GraphBuilder& GraphBuilder::output(const std::string& name, DType dtype) {
  TensorDecl d;
  d.name = name;
  d.dtype = dtype;
  d.has_shape = false;
  m_graph.outputs.push_back(std::move(d));
  return *this;
}

GraphBuilder& GraphBuilder::constant(const std::string& name, Tensor value) {
  m_graph.constants[name] = std::move(value);
  return *this;
}

Node& GraphBuilder::node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                         Attributes attrs, const std::string& name) {
  Node n = make_node(op, std::move(inputs), std::move(outputs), std::move(attrs));
  n.name = name.empty() ? op + "_" + std::to_string(m_graph.nodes.size()) : name;
  m_graph.nodes.push_back(std::move(n));
  return m_graph.nodes.back();
}

Graph GraphBuilder::build() {
  Graph g = m_graph;
  g.topological_sort();
  return g;
}

Tensor scalar_f32(float v) {
  Tensor t(DType::Float32, {});
  *t.data_as<float>() = v;
  return t;
}

Tensor f32_tensor(Shape shape, const std::vector<float>& values) {
  Tensor t(DType::Float32, std::move(shape));
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

Tensor i64_tensor(Shape shape, const std::vector<int64_t>& values) {
  Tensor t(DType::Int64, std::move(shape));
  std::copy(values.begin(), values.end(), t.data_as<int64_t>());
  return t;
}

std::unique_ptr<Plan> plan_cpu(const Graph& g, const std::map<std::string, Shape>& shapes,
                               std::set<std::string> disabled_fusions) {
  PlanOptions options;
  options.disabled_fusions = std::move(disabled_fusions);
  return build_plan(g, shapes, make_backend("cpu", {}), options);
}

std::vector<Tensor> run_plan(Plan& plan, const std::map<std::string, Tensor>& inputs) {
  load_inputs(plan, inputs);
  run_steps(plan, nullptr);
  return fetch_outputs(plan);
}

std::vector<Tensor> run_node_by_node(const Graph& g, const std::map<std::string, Tensor>& inputs) {
  std::map<std::string, Tensor> values = g.constants;
  for (auto& [name, t] : inputs) values[name] = t;
  for (const Node& node : g.nodes) {
    std::vector<Tensor> args;
    for (auto& in : node.inputs) args.push_back(in.empty() ? Tensor() : values.at(in));
    std::vector<Tensor> outs = run_node_cpu(node, args, g.opset);
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (!node.outputs[i].empty()) values[node.outputs[i]] = outs[i];
  }
  std::vector<Tensor> result;
  for (auto& decl : g.outputs) result.push_back(values.at(decl.name));
  return result;
}

std::vector<Tensor> run_engine(const Graph& g, const std::map<std::string, Tensor>& inputs, Options options) {
  options.backend = "cpu";
  Engine engine = Engine::from_graph(g, options);
  Session session = engine.create_session();
  return session.run_ordered(inputs);
}

std::vector<const Step*> steps_of(const Plan& plan, const std::string& op) {
  std::vector<const Step*> found;
  for (auto& step : plan.steps) {
    std::string name = step.node.domain.empty() ? step.node.op_type : step.node.domain + "." + step.node.op_type;
    if (name == op) found.push_back(&step);
  }
  return found;
}

std::vector<std::string> step_ops(const Plan& plan) {
  std::vector<std::string> ops;
  for (auto& step : plan.steps)
    ops.push_back(step.node.domain.empty() ? step.node.op_type : step.node.domain + "." + step.node.op_type);
  return ops;
}

namespace {
template <class T>
double to_double(T v) {
  if constexpr (is_half_like_v<T>)
    return static_cast<float>(v);
  else
    return static_cast<double>(v);
}
}  // namespace

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

void check_fused_equals_unfused(const Graph& g, const std::map<std::string, Tensor>& inputs, const std::string& rule,
                                double tol) {
  auto fused = run_engine(g, inputs);
  Options off;
  off.fuse = false;
  Options rule_off;
  rule_off.disabled_fusions = {rule};
  for (auto& unfused : {run_engine(g, inputs, off), run_engine(g, inputs, rule_off)}) {
    REQUIRE(unfused.size() == fused.size());
    for (size_t i = 0; i < fused.size(); ++i) CHECK(max_abs_diff(fused[i], unfused[i]) <= tol);
  }
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  dispatch_all(a.dtype(), "max_abs_diff", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < a.numel(); ++i) {
      double x = to_double(a.data_as<T>()[i]), y = to_double(b.data_as<T>()[i]);
      if (std::isnan(x) != std::isnan(y))
        worst = std::numeric_limits<double>::infinity();
      else if (!std::isnan(x))
        worst = std::max(worst, std::fabs(x - y));
    }
  });
  return worst;
}

double rel_l2(const Tensor& got, const Tensor& want) {
  if (got.shape() != want.shape() || got.dtype() != DType::Float32 || want.dtype() != DType::Float32)
    return std::numeric_limits<double>::infinity();
  double num = 0, den = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = got.data_as<float>()[i], w = want.data_as<float>()[i];
    num += (g - w) * (g - w);
    den += w * w;
  }
  return std::sqrt(num / den);
}

}  // namespace ie::test
