// Slice, Gather, GatherElements.
#include <limits>

#include "tests/ops/tensor_helpers.h"

using namespace ie;
using namespace ie::test;

namespace {
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Tensor slice(const Tensor& x, std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes,
             std::vector<int64_t> steps) {
  const int64_t n = static_cast<int64_t>(starts.size());
  return run1(make_node("Slice", {"x", "s", "e", "a", "t"}, {"y"}),
              {x, i64({n}, starts), i64({n}, ends), i64({n}, axes), i64({n}, steps)}, 13);
}
}  // namespace

TEST_CASE("Slice with axes, negative steps and out-of-range clamping") {
  Tensor x = iota<int64_t>({2, 5, 6});
  check_tensor(slice(x, {3, 1}, {-10, 100}, {1, -1}, {-2, 4}), DType::Int64, {2, 2, 2},
               {19, 23, 7, 11, 49, 53, 37, 41});
  check_tensor(slice(x, {-5}, {1}, {0}, {1}), DType::Int64, {1, 5, 6}, values(slice(x, {0}, {1}, {0}, {1})));
  check_tensor(slice(x, {1}, {3}, {1}, {1}), DType::Int64, {2, 2, 6},
               {6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47});
  // Start beyond the end: empty; INT64_MIN/MAX ends as exporters write them.
  check_tensor(slice(x, {7}, {kMax}, {2}, {1}), DType::Int64, {2, 5, 0}, {});
  check_tensor(slice(iota<int64_t>({4}), {kMax}, {kMin}, {0}, {-1}), DType::Int64, {4}, {3, 2, 1, 0});
  check_tensor(slice(iota<int64_t>({4}), {-1}, {kMin}, {0}, {kMin}), DType::Int64, {1}, {3});
  check_tensor(slice(f16({5}, {1, 2, 3, 4, 5}), {-1}, {0}, {0}, {-3}), DType::Float16, {2}, {5, 2});
}

TEST_CASE("Slice input forms: default axes and steps (opset 10+), attributes (opset 1)") {
  Tensor x = iota<int64_t>({3, 4});
  check_tensor(run1(make_node("Slice", {"x", "s", "e"}, {"y"}), {x, i64({2}, {1, 1}), i64({2}, {3, 3})}, 10),
               DType::Int64, {2, 2}, {5, 6, 9, 10});
  check_tensor(run1(make_node("Slice", {"x", "s", "e", "", "t"}, {"y"}),
                    {x, i64({1}, {0}), i64({1}, {4}), Tensor(), i64({1}, {3})}, 13),
               DType::Int64, {1, 4}, {0, 1, 2, 3});
  Attributes a;
  a.set_ints("starts", {1});
  a.set_ints("ends", {kMax});
  a.set_ints("axes", {1});
  check_tensor(run1(make_node("Slice", {"x"}, {"y"}, a), {x}, 1), DType::Int64, {3, 3}, {1, 2, 3, 5, 6, 7, 9, 10, 11});
}

TEST_CASE("Slice rejects bad arguments") {
  Tensor x = iota<int64_t>({3, 4});
  CHECK_THROWS_WITH_AS(slice(x, {0}, {2}, {1}, {0}), doctest::Contains("step"), Error);
  CHECK_THROWS_AS(slice(x, {0, 0}, {2, 2}, {1, -1}, {1, 1}), Error);  // repeated axis
  CHECK_THROWS_AS(slice(x, {0}, {2}, {2}, {1}), Error);
  CHECK_THROWS_AS(run1(make_node("Slice", {"x", "s", "e"}, {"y"}), {x, i64({2}, {1, 1}), i64({1}, {3})}, 13), Error);
}

TEST_CASE("Gather along an axis with negative, int32 and matrix indices") {
  Tensor x = iota<int64_t>({2, 3, 4});
  Attributes a;
  a.set_int("axis", -1);
  check_tensor(run1(make_node("Gather", {"x", "i"}, {"y"}, a), {x, i64({2, 2}, {2, -1, 0, 0})}), DType::Int64,
               {2, 3, 2, 2}, {2, 3, 0, 0, 6, 7, 4, 4, 10, 11, 8, 8, 14, 15, 12, 12, 18, 19, 16, 16, 22, 23, 20, 20});
  a.set_int("axis", 1);
  check_tensor(run1(make_node("Gather", {"x", "i"}, {"y"}, a), {x, i32({}, {-2})}), DType::Int64, {2, 4},
               {4, 5, 6, 7, 16, 17, 18, 19});
  check_tensor(run1(make_node("Gather", {"x", "i"}, {"y"}), {f16({3}, {1, 2, 3}), i64({2}, {2, 0})}), DType::Float16,
               {2}, {3, 1});
  CHECK_THROWS_WITH_AS(run1(make_node("Gather", {"x", "i"}, {"y"}, a), {x, i64({1}, {3})}),
                       doctest::Contains("out of range"), Error);
  CHECK_THROWS_AS(run1(make_node("Gather", {"x", "i"}, {"y"}, a), {x, f32({1}, {0})}), Error);
}

TEST_CASE("GatherElements picks along the axis per element") {
  Tensor d = iota<int64_t>({3, 4});
  check_tensor(run1(make_node("GatherElements", {"d", "i"}, {"y"}), {d, i64({2, 4}, {2, -1, 0, 1, 0, 0, 2, 1})}),
               DType::Int64, {2, 4}, {8, 9, 2, 7, 0, 1, 10, 7});
  Attributes a;
  a.set_int("axis", -1);
  check_tensor(run1(make_node("GatherElements", {"d", "i"}, {"y"}, a), {d, i32({3, 2}, {3, 0, 1, -1, 0, 0})}),
               DType::Int64, {3, 2}, {3, 0, 5, 7, 8, 8});
  CHECK_THROWS_AS(run1(make_node("GatherElements", {"d", "i"}, {"y"}, a), {d, i64({3, 1}, {4, 0, 0})}), Error);
  CHECK_THROWS_AS(run1(make_node("GatherElements", {"d", "i"}, {"y"}, a), {d, i64({3}, {0, 0, 0})}), Error);
}
