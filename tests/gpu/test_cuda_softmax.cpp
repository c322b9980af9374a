// cuda-reference Softmax and LogSoftmax (cuDNN, CHANNEL mode over [outer, n, inner, 1]) against the CPU backend,
// for every axis and for opset < 13's 2-D coercion.
#include "cuda_compare.h"
#include "engine/core/shape.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

// A reduction (max, sum of exponentials) then one division or subtraction per element.
constexpr Tolerance kSoftmax{1e-5, 1e-4};

void check_soft(const std::string& op, const Shape& x, int64_t axis, int64_t opset) {
  const std::string what =
      op + " X=" + shape_to_string(x) + " axis=" + std::to_string(axis) + " opset=" + std::to_string(opset);
  Attributes a;
  a.set_int("axis", axis);
  check_matches_cpu(what, make_node(op, {"x"}, {"y"}, a), {random_uniform(x, seed_of(what, 1), -5.f, 5.f)}, {false},
                    kSoftmax, opset);
}

TEST_CASE("cuda Softmax and LogSoftmax along any axis") {
  IE_REQUIRE_GPU();
  for (const std::string op : {"Softmax", "LogSoftmax"}) {
    for (int64_t b : {1, 3, 257}) {
      check_soft(op, {b, 10}, -1, 13);         // ConvNet head
      check_soft(op, {b, 4, 10, 10}, -1, 13);  // attention
      check_soft(op, {b, 4, 10, 10}, 2, 13);   // a middle axis
    }
    check_soft(op, {3, 5, 7}, 0, 13);
    check_soft(op, {3, 5, 7}, 1, 13);
    check_soft(op, {33}, 0, 13);
    check_soft(op, {2, 3, 1000}, -1, 13);
  }
}

TEST_CASE("cuda Softmax and LogSoftmax before opset 13 (2-D coercion)") {
  IE_REQUIRE_GPU();
  for (const std::string op : {"Softmax", "LogSoftmax"}) {
    check_soft(op, {3, 5, 7}, 1, 11);
    check_soft(op, {3, 5, 7}, 0, 11);
    check_soft(op, {257, 4, 3}, 2, 11);
    check_soft(op, {1, 10}, 1, 11);
  }
}

}  // namespace
}  // namespace ie::test
