// The comparison metrics behind compare (tools/common/tensor_diff.h) and the timing statistics behind bench.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "tools/common/stats.h"
#include "tools/common/tensor_diff.h"

namespace {
ie::Tensor floats(std::vector<int64_t> shape, std::vector<float> values) {
  ie::Tensor t(ie::DType::Float32, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data_as<float>()[i] = values[i];
  return t;
}
}  // namespace

TEST_CASE("tensor diff: identical tensors pass with zero error") {
  auto a = floats({2, 2}, {1, -2, 3, 0.5f});
  ie::cli::DiffStats d = ie::cli::diff_tensors(a, a.clone(), {1e-5, 1e-4});
  CHECK(d.pass);
  CHECK(d.max_abs == 0);
  CHECK(d.cosine == doctest::Approx(1.0));
  CHECK(d.fail_percent == 0);
  CHECK(d.min_atol == 0);
  CHECK(d.min_rtol == 0);
}

TEST_CASE("tensor diff: statistics of a known perturbation") {
  auto ref = floats({2, 3}, {1, 2, 4, -8, 0, 10});
  auto got = floats({2, 3}, {1, 2.5f, 4, -8, 0.0005f, 10});
  ie::cli::Tolerance tol{1e-3, 1e-2};
  ie::cli::DiffStats d = ie::cli::diff_tensors(ref, got, tol);
  CHECK(!d.pass);
  CHECK(d.max_abs == doctest::Approx(0.5));
  CHECK(d.max_abs_index == 1);
  CHECK(d.max_abs_position == std::vector<int64_t>{0, 1});
  CHECK(d.mean_abs == doctest::Approx((0.5 + 0.0005) / 6).epsilon(1e-4));
  // |0.0005 - 0| / max(0, 1e-6) = 500 dominates 0.5 / 2.
  CHECK(d.max_rel == doctest::Approx(500).epsilon(1e-3));
  // ||(0, 0.5, 0, 0, 0.0005, 0)|| / ||(1, 2, 4, -8, 0, 10)||
  CHECK(d.rel_l2 == doctest::Approx(std::sqrt((0.25 + 0.0005 * 0.0005) / (1 + 4 + 16 + 64 + 100))).epsilon(1e-4));
  CHECK(d.fail_percent == doctest::Approx(100.0 / 6));  // only the 2.5 (0.0005 is within atol 1e-3)
  // Smallest atol with rtol 1e-2: 0.5 - 0.01 * 2 = 0.48; smallest rtol with atol 1e-3: (0.5 - 0.001) / 2.
  CHECK(d.min_atol == doctest::Approx(0.48));
  CHECK(d.min_rtol == doctest::Approx(0.2495));
  // Those limits do pass.
  CHECK(ie::cli::diff_tensors(ref, got, {0.48 + 1e-9, 1e-2}).pass);
  CHECK(ie::cli::diff_tensors(ref, got, {1e-3, 0.2495 + 1e-9}).pass);
}

TEST_CASE("tensor diff: NaN mismatches fail, matching NaNs pass, shapes must agree") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto a = floats({3}, {1, nan, 3});
  CHECK(ie::cli::diff_tensors(a, a.clone(), {1e-5, 1e-4}).pass);
  auto b = floats({3}, {1, 2, 3});
  ie::cli::DiffStats d = ie::cli::diff_tensors(a, b, {1e-5, 1e-4});
  CHECK(!d.pass);
  CHECK(d.non_finite_mismatches == 1);
  CHECK(std::isinf(d.min_atol));
  ie::cli::DiffStats s = ie::cli::diff_tensors(floats({3}, {1, 2, 3}), floats({1, 3}, {1, 2, 3}), {1, 1});
  CHECK(!s.pass);
  CHECK(!s.problem.empty());
}

TEST_CASE("tensor diff: default tolerances per precision") {
  CHECK(ie::cli::default_tolerance(ie::Precision::fp32).atol == 1e-5);
  CHECK(ie::cli::default_tolerance(ie::Precision::fp32).rtol == 1e-4);
  CHECK(ie::cli::default_tolerance(ie::Precision::tf32).atol == 1e-3);
  CHECK(ie::cli::default_tolerance(ie::Precision::tf32).rtol == 1e-2);
  CHECK(ie::cli::default_tolerance(ie::Precision::fp16).atol == 1e-2);
  CHECK(ie::cli::default_tolerance(ie::Precision::bf16).atol == 2e-2);
  CHECK_THROWS_AS(ie::cli::default_tolerance(ie::precision_from_name("int8")), ie::Error);
}

TEST_CASE("latency statistics") {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  ie::cli::LatencyStats s = ie::cli::summarize(v);
  CHECK(s.runs == 100);
  CHECK(s.p50 == doctest::Approx(50.5));
  CHECK(s.p90 == 90);
  CHECK(s.p99 == 99);
  CHECK(s.max == 100);
  CHECK(s.mean == doctest::Approx(50.5));
  CHECK(s.cv == doctest::Approx(std::sqrt((100.0 * 100 - 1) / 12) / 50.5));
  CHECK(ie::cli::summarize({2, 2, 2}).cv == 0);
}
