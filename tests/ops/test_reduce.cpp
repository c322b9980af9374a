// Reduce* and ArgMax/ArgMin.
#include <cmath>

#include "tests/ops/tensor_helpers.h"

using namespace ie;
using namespace ie::test;

namespace {
const std::vector<double> kData = {5, 1, 4, 2, 1, 3, 3, 0, 7, 7, 2, 9, 9, 1, 0,
                                   1, 1, 1, 1, 1, 0, 8, 2, 6, 8, 4, 4, 3, 5, 0};

Tensor reduce(const char* op, const Tensor& x, std::vector<int64_t> axes, int64_t keepdims = 1, int64_t opset = 18) {
  Attributes a;
  a.set_int("keepdims", keepdims);
  const bool as_input = opset >= 18 || (opset >= 13 && std::string(op) == "ReduceSum");
  if (as_input) {
    const int64_t n = static_cast<int64_t>(axes.size());
    return run1(make_node(op, {"x", "axes"}, {"y"}, a), {x, i64({n}, axes)}, opset);
  }
  if (!axes.empty()) a.set_ints("axes", axes);
  return run1(make_node(op, {"x"}, {"y"}, a), {x}, opset);
}

// Sum over `axes` with a plain loop, for checking the coalesced plans.
std::vector<double> naive_sum(const std::vector<double>& in, const Shape& shape, const std::vector<int64_t>& axes) {
  Shape out_shape = shape;
  for (int64_t a : axes) out_shape[a] = 1;
  std::vector<double> out(static_cast<size_t>(numel_range(out_shape, 0, out_shape.size())), 0);
  std::vector<int64_t> os = strides_of(out_shape);
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t rem = static_cast<int64_t>(i), off = 0;
    for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
      off += (out_shape[k] == 1 ? 0 : rem % shape[k]) * os[k];
      rem /= shape[k];
    }
    out[off] += in[i];
  }
  return out;
}
}  // namespace

TEST_CASE("Reduce ops over middle, outer+inner and all axes") {
  Tensor x = tensor<float>({2, 3, 5}, kData);
  check_tensor(reduce("ReduceSum", x, {1}), DType::Float32, {2, 1, 5}, {10, 13, 13, 10, 8, 5, 13, 6, 12, 9});
  check_tensor(reduce("ReduceMean", x, {-1, 0}, 0), DType::Float32, {3}, {1.8, 4.4, 3.7});
  check_tensor(reduce("ReduceMax", x, {0, 2}), DType::Float32, {1, 3, 1}, {5, 8, 9});
  check_tensor(reduce("ReduceMin", x, {1}, 0), DType::Float32, {2, 5}, {2, 1, 0, 1, 0, 0, 1, 1, 1, 0});
  check_tensor(reduce("ReduceProd", x, {0, 2}, 0), DType::Float32, {3}, {40, 0, 0});
  check_tensor(reduce("ReduceSumSquare", x, {}, 0), DType::Float32, {}, {569});
  check_tensor(reduce("ReduceL1", x, {2}, 0), DType::Float32, {2, 3}, {13, 20, 21, 5, 24, 16});
  check_tensor(reduce("ReduceL2", x, {1}, 0), DType::Float32, {2, 5},
               {6.164414, 9.539392, 9.848858, 7.348469, 7.071068, 4.123106, 9.0, 3.741657, 7.874008, 8.062258}, 1e-5);
  check_tensor(reduce("ReduceLogSum", x, {}, 1), DType::Float32, {1, 1, 1}, {std::log(99.0)}, 1e-5);
  check_tensor(reduce("ReduceLogSumExp", x, {0, 2}, 0), DType::Float32, {3}, {5.435591, 9.060467, 9.710871}, 1e-5);
}

TEST_CASE("Reduce on int64 and float16, and the opset forms of axes") {
  Tensor xi = tensor<int64_t>({2, 3, 5}, kData);
  check_tensor(reduce("ReduceSum", xi, {1}, 0, 11), DType::Int64, {2, 5}, {10, 13, 13, 10, 8, 5, 13, 6, 12, 9});
  check_tensor(reduce("ReduceMean", xi, {1}, 0, 13), DType::Int64, {2, 5}, {3, 4, 4, 3, 2, 1, 4, 2, 4, 3});
  check_tensor(reduce("ReduceMax", xi, {-1}, 1, 13), DType::Int64, {2, 3, 1}, {5, 7, 9, 1, 8, 5});
  Tensor xh = tensor<half>({2, 3, 5}, kData);
  check_tensor(reduce("ReduceSum", xh, {0, 2}, 0, 13), DType::Float16, {3}, {18, 44, 37});
  check_tensor(reduce("ReduceLogSumExp", xh, {0, 2}, 0, 13), DType::Float16, {3}, {5.4356, 9.0605, 9.7109}, 2e-3);
  // Empty axes: all axes, or nothing with noop_with_empty_axes.
  check_tensor(reduce("ReduceSum", xi, {}, 0, 13), DType::Int64, {}, {99});
  Attributes a;
  a.set_int("noop_with_empty_axes", 1);
  check_tensor(run1(make_node("ReduceSum", {"x", "axes"}, {"y"}, a), {xi, i64({0}, {})}, 13), DType::Int64, {2, 3, 5},
               kData);
  check_tensor(run1(make_node("ReduceMax", {"x"}, {"y"}, a), {xi}, 18), DType::Int64, {2, 3, 5}, kData);
}

TEST_CASE("Reduce over empty axes yields the identity of the op") {
  Tensor e(DType::Float32, {2, 0});
  check_tensor(reduce("ReduceSum", e, {1}, 0), DType::Float32, {2}, {0, 0});
  check_tensor(reduce("ReduceProd", e, {1}, 0), DType::Float32, {2}, {1, 1});
  CHECK(std::isinf(values(reduce("ReduceMax", e, {1}, 0))[0]));
}

TEST_CASE("ReduceSum matches a naive loop for every axis subset of an odd 4-d shape") {
  const Shape shape = {3, 5, 2, 7};
  Tensor x = iota<double>(shape);
  std::vector<double> in = values(x);
  for (int mask = 1; mask < 16; ++mask) {
    std::vector<int64_t> axes;
    for (int k = 0; k < 4; ++k)
      if (mask & (1 << k)) axes.push_back(k);
    INFO("axes ", shape_to_string(axes));
    CHECK(values(reduce("ReduceSum", x, axes, 1, 13)) == naive_sum(in, shape, axes));
  }
  // Long rows in both layouts (reduced innermost, kept innermost) exercise the chunked accumulators.
  Tensor big = iota<float>({3, 2500});
  CHECK(values(reduce("ReduceMax", big, {0}, 0)) ==
        values(run1(make_node("Gather", {"x", "i"}, {"y"}), {big, i64({}, {2})})));
  check_tensor(reduce("ReduceMin", big, {1}, 0), DType::Float32, {3}, {0, 2500, 5000});
}

TEST_CASE("Reduce rejects bad axes") {
  Tensor x(DType::Float32, {2, 3});
  CHECK_THROWS_AS(reduce("ReduceSum", x, {2}), Error);
  CHECK_THROWS_WITH_AS(reduce("ReduceMean", x, {1, -1}), doctest::Contains("same axis"), Error);
  CHECK_THROWS_AS(reduce("ReduceL2", Tensor(DType::Bool, {2}), {0}), Error);
}

TEST_CASE("ArgMax and ArgMin: axis, keepdims, select_last_index") {
  Tensor x = tensor<float>({2, 3, 5}, kData);
  auto arg = [&](const char* op, const Tensor& t, int64_t axis, int64_t keepdims, int64_t last) {
    Attributes a;
    a.set_int("axis", axis);
    a.set_int("keepdims", keepdims);
    a.set_int("select_last_index", last);
    return run1(make_node(op, {"x"}, {"y"}, a), {t}, 13);
  };
  check_tensor(arg("ArgMax", x, 1, 1, 0), DType::Int64, {2, 1, 5}, {0, 2, 2, 1, 1, 2, 1, 2, 1, 1});
  check_tensor(arg("ArgMin", x, -1, 0, 0), DType::Int64, {2, 3}, {1, 2, 4, 0, 0, 4});
  check_tensor(arg("ArgMin", x, -1, 0, 1), DType::Int64, {2, 3}, {4, 2, 4, 4, 0, 4});
  check_tensor(arg("ArgMax", tensor<int64_t>({2, 3, 5}, kData), 2, 0, 1), DType::Int64, {2, 3}, {0, 4, 2, 4, 4, 3});
  check_tensor(arg("ArgMax", tensor<half>({2, 3, 5}, kData), 2, 0, 0), DType::Int64, {2, 3}, {0, 3, 1, 0, 1, 3});
  CHECK_THROWS_AS(arg("ArgMax", x, 3, 1, 0), Error);
  CHECK_THROWS_AS(arg("ArgMax", Tensor(DType::Float32, {2, 0}), 1, 1, 0), Error);
}
