// Helpers for the op tests of the CUDA reference path: seeded random tensors of any element type, and one call
// that runs a node on "cuda-reference" and on "cpu" and compares every output within stated tolerances.
#pragma once

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "engine/backend/kernel_sets.h"
#include "engine/core/dtype_dispatch.h"
#include "engine/registry/node_runner.h"
#include "gpu_test_util.h"

namespace ie::test {

/// Values uniform in [lo, hi) converted to `dtype` (integers: uniform integers in [lo, hi]; bool: fair coin).
inline Tensor random_tensor(DType dtype, std::vector<int64_t> shape, unsigned seed, double lo = -1, double hi = 1) {
  Tensor t(dtype, shape);
  std::mt19937 gen(seed);
  if (dtype == DType::Bool) {
    std::bernoulli_distribution coin(0.5);
    for (int64_t i = 0; i < t.numel(); ++i) t.data_as<bool>()[i] = coin(gen);
    return t;
  }
  if (is_integer(dtype)) {
    std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    dispatch_numeric(dtype, "random_tensor", [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0; i < t.numel(); ++i) t.data_as<T>()[i] = static_cast<T>(dist(gen));
    });
    return t;
  }
  std::uniform_real_distribution<double> dist(lo, hi);
  dispatch_float(dtype, "random_tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < t.numel(); ++i) t.data_as<T>()[i] = static_cast<T>(static_cast<float>(dist(gen)));
  });
  return t;
}

/// An int64 tensor holding `values` (shapes, axes, indices).
inline Tensor int64_tensor(std::vector<int64_t> shape, const std::vector<int64_t>& values) {
  Tensor t(DType::Int64, std::move(shape));
  REQUIRE(static_cast<size_t>(t.numel()) == values.size());
  for (size_t i = 0; i < values.size(); ++i) t.data_as<int64_t>()[i] = values[i];
  return t;
}

/// A float32 tensor holding `values`.
inline Tensor float_tensor(std::vector<int64_t> shape, const std::vector<float>& values) {
  Tensor t(DType::Float32, std::move(shape));
  REQUIRE(static_cast<size_t>(t.numel()) == values.size());
  for (size_t i = 0; i < values.size(); ++i) t.data_as<float>()[i] = values[i];
  return t;
}

/// Runs `node` on path `a` and on path `b` and checks every output: same dtype and shape, values within
/// atol + rtol * |b|. `what` names the case in failure messages.
inline void expect_paths_match(const std::string& what, const Node& node, const std::vector<Tensor>& inputs,
                               const std::vector<bool>& constant, int64_t opset, double atol, double rtol,
                               const Path& a, const Path& b) {
  INFO("case: ", what, " (", a.label(), " against ", b.label(), ")");
  std::vector<Tensor> got = run_node_on(a, node, inputs, constant, opset);
  std::vector<Tensor> want = run_node_on(b, node, inputs, constant, opset);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("output ", i, " (", node.outputs[i], "): ", dtype_name(want[i].dtype()), " ",
         shape_to_string(want[i].shape()));
    REQUIRE(got[i].dtype() == want[i].dtype());
    REQUIRE(got[i].shape() == want[i].shape());
    CHECK(tolerance_ratio(got[i], want[i], atol, rtol) <= 1.0);
  }
}

/// Runs `node` on cuda-reference and on cpu and checks every output (see expect_paths_match).
inline void expect_matches_cpu(const std::string& what, const Node& node, const std::vector<Tensor>& inputs,
                               const std::vector<bool>& constant, int64_t opset, double atol, double rtol) {
  expect_paths_match(what, node, inputs, constant, opset, atol, rtol, Path{kernel_set::kCudaReference},
                     Path{kernel_set::kCpu});
}

}  // namespace ie::test
