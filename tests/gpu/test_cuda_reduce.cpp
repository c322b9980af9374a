// ReduceSum and ReduceMean on cuda-reference against the CPU backend: trailing axes (warp and block rows),
// leading and middle axes (one thread per output), keepdims off, all axes, and noop_with_empty_axes.
#include <string>
#include <vector>

#include "cuda_op_compare.h"

namespace ie::test {
namespace {

constexpr double kF32Atol = 1e-5, kF32Rtol = 1e-4;  // fp32 reductions

TEST_CASE("cuda-reference ReduceSum/ReduceMean match the CPU") {
  IE_REQUIRE_GPU();
  struct Case {
    std::vector<int64_t> shape, axes;
    int64_t keepdims;
  };
  const std::vector<Case> cases = {
      {{7, 13, 5}, {-1}, 1},    {{7, 13, 5}, {1, 2}, 1}, {{50001, 64}, {1}, 1}, {{3, 5000}, {-1}, 0},
      {{7, 13, 5}, {0}, 1},     {{7, 13, 5}, {1}, 0},    {{1, 33}, {1}, 1},     {{7, 13, 5}, {0, 1, 2}, 0},
      {{4, 3, 300, 7}, {2}, 1}, {{2, 70000}, {1}, 1},
  };
  unsigned seed = 1;
  for (const char* op : {"ReduceSum", "ReduceMean"}) {
    for (const Case& c : cases) {
      Attributes attrs;
      attrs.set_int("keepdims", c.keepdims);
      // Positive values keep every sum far from 0, so the CPU's sequential float sum stays within the tolerance.
      Tensor x = random_tensor(DType::Float32, c.shape, seed++, 0, 1);
      const std::string what = std::string(op) + " " + shape_to_string(c.shape) + " axes " + shape_to_string(c.axes) +
                               " keepdims " + std::to_string(c.keepdims);
      // Opset 18: axes is an input for both ops.
      expect_matches_cpu(what, make_node(op, {"x", "axes"}, {"y"}, attrs),
                         {x, int64_tensor({static_cast<int64_t>(c.axes.size())}, c.axes)}, {false, true}, 18, kF32Atol,
                         kF32Rtol);
    }
  }
  Attributes axes_attr;
  axes_attr.set_ints("axes", {-1});
  expect_matches_cpu("ReduceMean opset 13 (axes attribute)", make_node("ReduceMean", {"x"}, {"y"}, axes_attr),
                     {random_tensor(DType::Float32, {9, 11}, 99, 0, 1)}, {}, 13, kF32Atol, kF32Rtol);
  Attributes noop;
  noop.set_int("noop_with_empty_axes", 1);
  expect_matches_cpu("ReduceSum noop_with_empty_axes", make_node("ReduceSum", {"x"}, {"y"}, noop),
                     {random_tensor(DType::Float32, {9, 11}, 98, 0, 1)}, {}, 18, kF32Atol, kF32Rtol);
  expect_matches_cpu("ReduceSum all axes (no axes input)", make_node("ReduceSum", {"x"}, {"y"}),
                     {random_tensor(DType::Float32, {9, 11, 3}, 97, 0, 1)}, {}, 18, kF32Atol, kF32Rtol);
}

}  // namespace
}  // namespace ie::test
