#include "gpu_test_util.h"

#include <cmath>
#include <iostream>
#include <random>

#include "engine/backend/backend.h"
#include "engine/core/dtype.h"
#include "engine/executor/executor.h"

namespace ie::test {

bool gpu_available() {
  static int state = -1;
  if (state < 0) {
    std::string reason;
    state = backend_available("cuda-reference", &reason) ? 1 : 0;
    if (!state) std::cerr << "GPU tests skipped: " << reason << "\n";
  }
  return state == 1;
}

std::vector<Tensor> run_node_on(const std::string& backend, const Node& node, const std::vector<Tensor>& inputs,
                                const std::vector<bool>& constant, int64_t opset, const std::string& precision) {
  Graph g;
  g.opset = opset;
  g.source = "test graph";
  g.nodes = {node};
  std::map<std::string, Shape> shapes;
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
    shapes[d.name] = inputs[i].shape();
    feeds[d.name] = inputs[i];
  }
  for (auto& o : node.outputs) {
    TensorDecl d;
    d.name = o;
    d.has_shape = false;
    g.outputs.push_back(d);
  }
  Options opts;
  opts.precision = precision;
  PlanOptions popts;
  popts.precision = precision;
  popts.disabled_fusions = {"all"};
  auto plan = build_plan(g, shapes, make_backend(backend, opts), popts);
  load_inputs(*plan, feeds);
  run_steps(*plan, nullptr);
  return fetch_outputs(*plan);
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
