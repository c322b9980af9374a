// Mean and inverse standard deviation of strided values, and broadcasting of per-feature parameters:
// shared by LayerNormalization, InstanceNormalization and BatchNormalization.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/shape.h"

namespace ie {

/// Two-pass mean and population variance of n values x[i * stride] (accumulated in Acc).
template <class Acc, class T>
void mean_variance(const T* x, int64_t n, int64_t stride, Acc& mean, Acc& var) {
  Acc sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<Acc>(x[i * stride]);
  mean = n > 0 ? sum / static_cast<Acc>(n) : Acc(0);
  Acc sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Acc d = static_cast<Acc>(x[i * stride]) - mean;
    sq += d * d;
  }
  var = n > 0 ? sq / static_cast<Acc>(n) : Acc(0);
}

/// Two-pass mean and population variance of n contiguous values in double, each pass as 8 partial sums (lane l
/// takes x[l], x[l + 8], ...; then a fixed pairwise tree): 8 independent chains instead of one serial chain of n
/// dependent adds, which the compiler turns into vector adds on any instruction set, the same bits on all of them.
template <class T>
void mean_variance_lanes(const T* x, int64_t n, double& mean, double& var) {
  constexpr int kLanes = 8;
  auto tree = [](const double* a) { return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7])); };
  const int64_t whole = n / kLanes * kLanes;
  double acc[kLanes] = {};
  for (int64_t i = 0; i < whole; i += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] += static_cast<double>(x[i + l]);
  for (int64_t i = whole; i < n; ++i) acc[i - whole] += static_cast<double>(x[i]);
  mean = n > 0 ? tree(acc) / static_cast<double>(n) : 0.0;
  double sq[kLanes] = {};
  for (int64_t i = 0; i < whole; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const double d = static_cast<double>(x[i + l]) - mean;
      sq[l] += d * d;
    }
  for (int64_t i = whole; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    sq[i - whole] += d * d;
  }
  var = n > 0 ? tree(sq) / static_cast<double>(n) : 0.0;
}

/// Values of a tensor of shape `from` broadcast (numpy rules, aligned to the right) to shape `to`, C order.
/// Returns `v` itself when no expansion is needed; fails naming `what` when the shapes do not broadcast.
template <class C>
const C* broadcast_to(const C* v, const Shape& from, const Shape& to, std::vector<C>& store, const std::string& what) {
  const int64_t n = numel_range(to, 0, to.size());
  if (numel_range(from, 0, from.size()) == n && from.size() <= to.size()) return v;
  if (from.size() > to.size()) fail_input(what, ": shape ", shape_to_string(from), " has more dims than ", shape_to_string(to));
  Shape f(to.size() - from.size(), 1);
  f.insert(f.end(), from.begin(), from.end());
  for (size_t d = 0; d < to.size(); ++d)
    if (f[d] != 1 && f[d] != to[d])
      fail_input(what, ": shape ", shape_to_string(from), " does not broadcast to ", shape_to_string(to));
  const auto fs = strides_of(f);
  store.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, src = 0;
    for (size_t d = to.size(); d-- > 0;) {
      const int64_t idx = rem % to[d];
      rem /= to[d];
      if (f[d] != 1) src += idx * fs[d];
    }
    store[i] = v[src];
  }
  return store.data();
}

}  // namespace ie
