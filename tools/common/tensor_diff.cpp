#include "tools/common/tensor_diff.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/core/dtype_dispatch.h"

namespace ie::cli {

namespace {

constexpr double kRelEpsilon = 1e-6;  // relative error denominators below this count as this
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  dispatch_all(t.dtype(), "compare", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data_as<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(p[i]);
  });
  return v;
}

std::vector<int64_t> unravel(int64_t index, const std::vector<int64_t>& shape) {
  std::vector<int64_t> pos(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    pos[d] = shape[d] ? index % shape[d] : 0;
    index = shape[d] ? index / shape[d] : 0;
  }
  return pos;
}

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(std::isnan(v) ? "nan" : "inf");
}

}  // namespace

Tolerance default_tolerance(Precision precision) {
  switch (precision) {
    case Precision::fp32: return {1e-5, 1e-4};
    case Precision::tf32: return {1e-3, 1e-2};
    case Precision::fp16: return {1e-2, 1e-2};
    // bf16 keeps 8 mantissa bits to fp16's 11: one rounding is 2^-9 relative, and activations are rounded at
    // every step.
    case Precision::bf16: return {2e-2, 2e-2};
  }
  throw Error(ErrorKind::Usage, "unknown precision");
}

double rel_l2_gate(Precision precision) {
  switch (precision) {
    case Precision::fp32: return 1e-5;
    case Precision::tf32: return 1e-3;
    case Precision::fp16:
    case Precision::bf16: return 1e-2;
  }
  throw Error(ErrorKind::Usage, "unknown precision");
}

DiffStats diff_tensors(const Tensor& ref, const Tensor& got, Tolerance tol) {
  DiffStats d;
  d.tolerance = tol;
  if (ref.shape() != got.shape()) {
    d.problem = "shapes differ: " + shape_to_string(ref.shape()) + " vs " + shape_to_string(got.shape());
    return d;
  }
  const std::vector<double> r = as_doubles(ref), g = as_doubles(got);
  d.count = static_cast<int64_t>(r.size());
  std::vector<double> abs_err(r.size());
  double sum_abs = 0, dot = 0, rr = 0, gg = 0, dd = 0;
  int64_t failed = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    const double a = r[i], b = g[i];
    double e;
    if (std::isfinite(a) && std::isfinite(b)) {
      e = std::fabs(b - a);
    } else {
      const bool same = (std::isnan(a) && std::isnan(b)) || a == b;  // equal infinities or both NaN
      e = same ? 0.0 : kInf;
      if (!same) ++d.non_finite_mismatches;
    }
    abs_err[i] = e;
    if (e > d.max_abs) {
      d.max_abs = e;
      d.max_abs_index = static_cast<int64_t>(i);
    }
    if (std::isfinite(e)) sum_abs += e;
    const double mag = std::isfinite(a) ? std::fabs(a) : 0.0;
    d.max_rel = std::max(d.max_rel, e / std::max(mag, kRelEpsilon));
    if (e > tol.atol + tol.rtol * mag) ++failed;
    d.min_atol = std::max(d.min_atol, e - tol.rtol * mag);
    if (e > tol.atol) d.min_rtol = std::max(d.min_rtol, mag > 0 ? (e - tol.atol) / mag : kInf);
    if (std::isfinite(a) && std::isfinite(b)) {
      dot += a * b;
      rr += a * a;
      gg += b * b;
      dd += (b - a) * (b - a);
    }
  }
  if (d.count) {
    d.mean_abs = d.non_finite_mismatches ? kInf : sum_abs / static_cast<double>(d.count);
    size_t k = std::min(abs_err.size() - 1, static_cast<size_t>(std::ceil(0.99 * static_cast<double>(d.count))) - 1);
    std::nth_element(abs_err.begin(), abs_err.begin() + static_cast<std::ptrdiff_t>(k), abs_err.end());
    d.p99_abs = abs_err[k];
    d.fail_percent = 100.0 * static_cast<double>(failed) / static_cast<double>(d.count);
  }
  d.cosine = rr == 0 && gg == 0 ? 1.0 : (rr == 0 || gg == 0 ? 0.0 : dot / std::sqrt(rr * gg));
  d.rel_l2 = rr > 0 ? std::sqrt(dd / rr) : (dd > 0 ? kInf : 0.0);
  d.max_abs_position = unravel(d.max_abs_index, ref.shape());
  d.pass = failed == 0;
  return d;
}

nlohmann::json diff_json(const DiffStats& d) {
  nlohmann::json j = {{"pass", d.pass},
                      {"elements", d.count},
                      {"atol", d.tolerance.atol},
                      {"rtol", d.tolerance.rtol},
                      {"max_abs", number(d.max_abs)},
                      {"max_abs_index", d.max_abs_index},
                      {"max_abs_position", d.max_abs_position},
                      {"mean_abs", number(d.mean_abs)},
                      {"p99_abs", number(d.p99_abs)},
                      {"max_rel", number(d.max_rel)},
                      {"cosine", number(d.cosine)},
                      {"rel_l2", number(d.rel_l2)},
                      {"fail_percent", d.fail_percent},
                      {"non_finite_mismatches", d.non_finite_mismatches},
                      {"min_passing_atol", number(d.min_atol)},
                      {"min_passing_rtol", number(d.min_rtol)}};
  if (!d.problem.empty()) j["problem"] = d.problem;
  return j;
}

}  // namespace ie::cli
