// Helpers for the neural-network op tests: build tensors from literals, run one node, compare with tolerances.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "engine/core/dtype_dispatch.h"
#include "engine/registry/node_runner.h"

namespace ie::test {

/// A tensor of dtype `t` holding `values` (converted from double).
inline Tensor tensor(DType t, Shape shape, const std::vector<double>& values) {
  Tensor x(t, shape);
  REQUIRE(static_cast<int64_t>(values.size()) == x.numel());
  dispatch_all(t, "tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < values.size(); ++i) x.data_as<T>()[i] = static_cast<T>(static_cast<float>(values[i]));
  });
  return x;
}
inline Tensor f32(Shape shape, const std::vector<double>& values) { return tensor(DType::Float32, shape, values); }

inline double value_at(const Tensor& t, int64_t i) {
  return dispatch_all(t.dtype(), "value_at", [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    return static_cast<double>(static_cast<float>(t.data_as<T>()[i]));
  });
}

/// Checks shape and every value within atol + rtol * |expected|.
inline void check_close(const Tensor& got, Shape shape, const std::vector<double>& expected, double rtol = 1e-4,
                        double atol = 1e-5) {
  REQUIRE(shape_to_string(got.shape()) == shape_to_string(shape));
  REQUIRE(got.numel() == static_cast<int64_t>(expected.size()));
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = value_at(got, i), e = expected[i];
    if (!(std::fabs(g - e) <= atol + rtol * std::fabs(e))) {
      FAIL_CHECK("element ", i, ": got ", g, ", expected ", e);
      return;
    }
  }
}

/// Checks two tensors against each other (same shape, close values).
inline void check_same(const Tensor& got, const Tensor& want, double rtol = 1e-5, double atol = 1e-6) {
  std::vector<double> v(static_cast<size_t>(want.numel()));
  for (int64_t i = 0; i < want.numel(); ++i) v[i] = value_at(want, i);
  check_close(got, want.shape(), v, rtol, atol);
}

/// Deterministic pseudo-random values in [-1, 1) for shapes too large to write out.
inline std::vector<double> ramp(int64_t n, uint32_t seed = 1) {
  std::vector<double> v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 12345u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<double>(s >> 8) / static_cast<double>(1u << 23) - 1.0;
  }
  return v;
}

}  // namespace ie::test
