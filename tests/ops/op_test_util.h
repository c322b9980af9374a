// Helpers for op tests: tensors from literals, values back as doubles, closeness checks.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "engine/core/dtype_dispatch.h"
#include "engine/registry/node_runner.h"

namespace ie::test {

/// A tensor of dtype_of<T>() holding `values` (converted from double, so half and bool work too).
template <class T>
Tensor tensor(std::vector<int64_t> shape, const std::vector<double>& values) {
  Tensor t(dtype_of<T>(), std::move(shape));
  REQUIRE(static_cast<size_t>(t.numel()) == values.size());
  T* p = t.data_as<T>();
  for (size_t i = 0; i < values.size(); ++i) {
    if constexpr (is_half_like_v<T>)
      p[i] = T(static_cast<float>(values[i]));
    else
      p[i] = static_cast<T>(values[i]);
  }
  return t;
}

/// Every element of t as a double.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  dispatch_all(t.dtype(), "values", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < out.size(); ++i) {
      if constexpr (is_half_like_v<T>)
        out[i] = static_cast<float>(t.data_as<T>()[i]);
      else
        out[i] = static_cast<double>(t.data_as<T>()[i]);
    }
  });
  return out;
}

/// Checks dtype, shape and values within atol + rtol * |expected| (NaN matches NaN, inf matches inf).
inline void check_tensor(const Tensor& t, DType dtype, const std::vector<int64_t>& shape,
                         const std::vector<double>& expected, double rtol = 1e-5, double atol = 1e-6) {
  REQUIRE(t.dtype() == dtype);
  REQUIRE(t.shape() == shape);
  std::vector<double> got = values(t);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == expected[i] || (std::isnan(expected[i]) && std::isnan(got[i]))) continue;
    INFO("element ", i, ": got ", got[i], ", expected ", expected[i]);
    CHECK(std::fabs(got[i] - expected[i]) <= atol + rtol * std::fabs(expected[i]));
  }
}

/// Runs a one-output node on the CPU.
inline Tensor run1(const std::string& op, const std::vector<Tensor>& inputs, Attributes attrs = {},
                   int64_t opset = 17) {
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) names.push_back(inputs[i].empty() ? "" : "in" + std::to_string(i));
  return run_node_cpu(make_node(op, names, {"out"}, std::move(attrs)), inputs, opset).at(0);
}

}  // namespace ie::test
