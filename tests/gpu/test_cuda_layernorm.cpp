// LayerNormalization on cuda-reference against the CPU backend: the warp-per-row path (n <= 1024, packed and
// scalar loads), the block-per-row path (n > 1024), a large row count, batch 1, float16, no bias, another axis,
// and the Mean / InvStdDev outputs.
#include <string>
#include <vector>

#include "cuda_op_compare.h"

namespace ie::test {
namespace {

constexpr double kF32Atol = 1e-5, kF32Rtol = 1e-4;  // fp32 reductions
constexpr double kF16Atol = 2e-3, kF16Rtol = 2e-3;  // float16 output: one rounding may differ

struct NormCase {
  std::vector<int64_t> x;
  int64_t axis;
  bool bias;
  bool constant_weights;
};

std::string describe(const NormCase& c, DType t) {
  return std::string("LayerNormalization ") + dtype_name(t) + " " + shape_to_string(c.x) + " axis " +
         std::to_string(c.axis) + (c.bias ? " with bias" : " no bias") + (c.constant_weights ? " (weights)" : "");
}

void check_case(const NormCase& c, DType t, unsigned seed, float epsilon = 1e-5f, bool stats = false) {
  const int64_t rank = static_cast<int64_t>(c.x.size());
  const int64_t axis = c.axis < 0 ? c.axis + rank : c.axis;
  std::vector<int64_t> norm(c.x.begin() + axis, c.x.end());
  // An offset of 3 makes a one-pass variance lose digits; the two-pass kernels must not.
  Tensor x = random_tensor(t, c.x, seed, 2, 4);
  Tensor scale = random_tensor(t, norm, seed + 1, 0.5, 1.5);
  Tensor bias = c.bias ? random_tensor(t, norm, seed + 2, -1, 1) : Tensor();
  Attributes attrs;
  attrs.set_int("axis", c.axis);
  attrs.set_float("epsilon", epsilon);
  std::vector<std::string> outs = {"y"};
  if (stats) outs = {"y", "mean", "inv_std"};
  Node node = make_node("LayerNormalization", {"x", "scale", c.bias ? "b" : ""}, outs, attrs);
  const bool w = c.constant_weights;
  const bool half = t == DType::Float16;
  expect_matches_cpu(describe(c, t) + (stats ? " +stats" : ""), node, {x, scale, bias}, {false, w, w}, 17,
                     half ? kF16Atol : kF32Atol, half ? kF16Rtol : kF32Rtol);
}

TEST_CASE("cuda-reference LayerNormalization matches the CPU") {
  IE_REQUIRE_GPU();
  const std::vector<NormCase> cases = {
      {{7, 13, 64}, -1, true, true},   // the SSA's width, packed loads
      {{50001, 64}, -1, true, false},  // a large row count
      {{1, 33}, -1, true, true},       // batch 1, odd n (scalar loads)
      {{3, 5, 1000}, -1, true, true},  // packed, 8 iterations per lane
      {{2, 999}, -1, false, true},     // scalar loads, 32 iterations per lane
      {{5, 1024}, -1, true, false},    // the largest warp row
      {{4, 1025}, -1, true, true},     // the smallest block row
      {{3, 7001}, -1, true, true},     // block row, odd n
      {{5, 7, 6}, 1, true, true},      // normalizes the last two dims (n = 42)
      {{9, 4, 3}, 0, true, true},      // one row of everything
  };
  unsigned seed = 1;
  for (const NormCase& c : cases) {
    check_case(c, DType::Float32, seed);
    seed += 3;
  }
  check_case({{9, 64}, -1, true, true}, DType::Float16, 100);
  check_case({{5, 36}, -1, true, true}, DType::Float16, 103);     // n not a multiple of 8: scalar loads
  check_case({{4, 2000}, -1, true, false}, DType::Float16, 106);  // block path
  check_case({{11, 64}, -1, true, true}, DType::Float32, 109, 1e-3f);
}

TEST_CASE("cuda-reference LayerNormalization writes Mean and InvStdDev") {
  IE_REQUIRE_GPU();
  check_case({{7, 13, 64}, -1, true, true}, DType::Float32, 200, 1e-5f, true);
  check_case({{3, 3000}, -1, false, true}, DType::Float32, 203, 1e-5f, true);
}

}  // namespace
}  // namespace ie::test
