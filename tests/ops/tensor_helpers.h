// Small helpers for op tests: build tensors from literals and read them back.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "engine/core/dtype_dispatch.h"
#include "engine/registry/node_runner.h"

namespace ie::test {

/// A tensor of `shape` holding `values` converted to T (half included).
template <class T, class V>
Tensor tensor(Shape shape, const std::vector<V>& values) {
  Tensor t(dtype_of<T>(), std::move(shape));
  REQUIRE(static_cast<int64_t>(values.size()) == t.numel());
  for (size_t i = 0; i < values.size(); ++i) t.data_as<T>()[i] = static_cast<T>(values[i]);
  return t;
}

inline Tensor f32(Shape shape, const std::vector<float>& v) { return tensor<float>(std::move(shape), v); }
inline Tensor f16(Shape shape, const std::vector<float>& v) { return tensor<half>(std::move(shape), v); }
inline Tensor i64(Shape shape, const std::vector<int64_t>& v) { return tensor<int64_t>(std::move(shape), v); }
inline Tensor i32(Shape shape, const std::vector<int32_t>& v) { return tensor<int32_t>(std::move(shape), v); }

/// 0, 1, 2, ... as T.
template <class T>
Tensor iota(Shape shape) {
  Tensor t(dtype_of<T>(), std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<T>()[i] = static_cast<T>(i);
  return t;
}

/// The values of a tensor of any number type, as doubles.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  dispatch_all(t.dtype(), "values", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(t.data_as<T>()[i]);
  });
  return v;
}

/// Checks dtype, shape and values (within `tol`, relative to 1 + |expected|).
inline void check_tensor(const Tensor& got, DType dtype, const Shape& shape, const std::vector<double>& expected,
                         double tol = 1e-6) {
  CHECK(dtype_name(got.dtype()) == std::string(dtype_name(dtype)));
  CHECK(shape_to_string(got.shape()) == shape_to_string(shape));
  std::vector<double> v = values(got);
  REQUIRE(v.size() == expected.size());
  for (size_t i = 0; i < v.size(); ++i) {
    INFO("element ", i);
    CHECK(std::abs(v[i] - expected[i]) <= tol * (1 + std::abs(expected[i])));
  }
}

/// Attributes with one entry.
inline Attributes int_attr(const char* name, int64_t v) {
  Attributes a;
  a.set_int(name, v);
  return a;
}
inline Attributes ints_attr(const char* name, std::vector<int64_t> v) {
  Attributes a;
  a.set_ints(name, std::move(v));
  return a;
}

/// Runs a one-output node on the CPU.
inline Tensor run1(const Node& node, const std::vector<Tensor>& inputs, int64_t opset = 17) {
  return run_node_cpu(node, inputs, opset).at(0);
}

}  // namespace ie::test
