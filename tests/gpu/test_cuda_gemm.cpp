// cuda-reference Gemm, ie.Linear and MatMul (cuBLASLt / cuBLAS) against the CPU backend on odd shapes.
#include <cmath>

#include "cuda_compare.h"
#include "engine/core/shape.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

// fp32 (TF32 off) products: summation order differs from the CPU's, nothing else.
constexpr Tolerance kFp32Gemm{1e-5, 1e-4};
// TF32 rounds both operands to a 10-bit mantissa (relative 2^-11 each); with K up to 1024 and weights scaled
// by 1/sqrt(K) the outputs are O(1) and the error stays well under 1e-2.
constexpr Tolerance kTf32Gemm{1e-2, 1e-2};

// Weights scaled like a trained layer's (1/sqrt(fan_in)), so outputs are O(1) whatever K is.
Tensor weight(std::vector<int64_t> shape, int64_t fan_in, unsigned seed) {
  const float r = 1.f / std::sqrt(static_cast<float>(fan_in));
  return random_uniform(std::move(shape), seed, -r, r);
}

void check_gemm(int64_t m, int64_t k, int64_t n, bool ta, bool tb, float alpha, float beta, Shape c_shape, bool b_const,
                Precision precision = Precision::fp32, Tolerance tol = kFp32Gemm) {
  const std::string what = "Gemm m=" + std::to_string(m) + " k=" + std::to_string(k) + " n=" + std::to_string(n) +
                           " transA=" + std::to_string(ta) + " transB=" + std::to_string(tb) +
                           " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) +
                           " C=" + (c_shape.empty() ? std::string("none") : shape_to_string(c_shape));
  Attributes a;
  a.set_int("transA", ta);
  a.set_int("transB", tb);
  a.set_float("alpha", alpha);
  a.set_float("beta", beta);
  std::vector<Tensor> in = {random_uniform(ta ? Shape{k, m} : Shape{m, k}, seed_of(what, 1)),
                            weight(tb ? Shape{n, k} : Shape{k, n}, k, seed_of(what, 2))};
  std::vector<std::string> names = {"a", "b"};
  if (!c_shape.empty()) {
    in.push_back(random_uniform(c_shape, seed_of(what, 3)));
    names.push_back("c");
  }
  check_matches_cpu(what, make_node("Gemm", names, {"y"}, a), in, {false, b_const, true}, tol, 17, precision);
}

TEST_CASE("cuda Gemm: transposes, alpha/beta and every C broadcast") {
  IE_REQUIRE_GPU();
  for (int64_t m : {1, 3, 257}) {
    check_gemm(m, 33, 17, false, false, 1.f, 1.f, {}, true);        // no C
    check_gemm(m, 33, 17, false, true, 1.f, 1.f, {17}, true);       // bias epilogue
    check_gemm(m, 33, 17, true, false, 0.5f, 2.f, {17}, false);     // row vector, beta != 1
    check_gemm(m, 33, 17, true, true, 1.5f, -0.5f, {m, 17}, true);  // full C
    check_gemm(m, 33, 17, false, false, 1.f, 1.f, {m, 1}, true);    // column broadcast
    check_gemm(m, 33, 17, false, true, 2.f, 0.25f, {1}, false);     // scalar
    check_gemm(m, 33, 17, false, true, 1.f, 0.f, {m, 17}, true);    // beta = 0 ignores C
  }
  check_gemm(257, 1024, 32, false, true, 1.f, 1.f, {32}, true);  // ConvNet fc3
  check_gemm(3, 1, 5, false, false, 1.f, 1.f, {1, 5}, true);     // K = 1
}

TEST_CASE("cuda Gemm and Linear in tf32 (tolerance 1e-2)") {
  IE_REQUIRE_GPU();
  check_gemm(65, 1024, 33, false, true, 1.f, 1.f, {33}, true, Precision::tf32, kTf32Gemm);
  check_gemm(257, 511, 70, true, false, 0.5f, 2.f, {257, 70}, false, Precision::tf32, kTf32Gemm);
  Attributes a;
  a.set_int("trans_w", 1);
  a.set_string("activation", "Relu");
  const std::string what = "Linear tf32 [129, 1024] x [40, 1024]^T + bias, Relu";
  check_matches_cpu(what, make_node("Linear", {"a", "w", "b"}, {"y"}, a, "ie"),
                    {random_uniform({129, 1024}, seed_of(what, 1)), weight({40, 1024}, 1024, seed_of(what, 2)),
                     random_uniform({40}, seed_of(what, 3))},
                    {false, true, true}, kTf32Gemm, 17, Precision::tf32);
}

void check_linear(Shape a_shape, int64_t n, bool trans_w, bool bias, const std::string& act) {
  const int64_t k = a_shape.back();
  const std::string what = "Linear A=" + shape_to_string(a_shape) + " N=" + std::to_string(n) +
                           " trans_w=" + std::to_string(trans_w) + " bias=" + std::to_string(bias) + " act=" + act;
  Attributes a;
  a.set_int("trans_w", trans_w);
  a.set_string("activation", act);
  std::vector<Tensor> in = {random_uniform(a_shape, seed_of(what, 1)),
                            weight(trans_w ? Shape{n, k} : Shape{k, n}, k, seed_of(what, 2))};
  std::vector<std::string> names = {"a", "w"};
  if (bias) {
    in.push_back(random_uniform({n}, seed_of(what, 3)));
    names.push_back("b");
  }
  check_matches_cpu(what, make_node("Linear", names, {"y"}, a, "ie"), in, {false, true, true}, kFp32Gemm);
}

TEST_CASE("cuda Linear: layouts, bias, Relu epilogue, folded leading dims") {
  IE_REQUIRE_GPU();
  for (int64_t b : {1, 3, 257}) {
    check_linear({b, 1024}, 32, true, true, "Relu");  // ConvNet fc3
    check_linear({b, 32}, 10, true, true, "");        // ConvNet fc4
    check_linear({b, 10, 32}, 64, false, true, "");   // SSA slice embedding
    check_linear({b, 10, 64}, 128, true, false, "Relu");
    check_linear({b, 7}, 5, false, false, "");
  }
}

TEST_CASE("cuda Linear: the exact GELU, Tanh and Sigmoid after cuBLASLt's bias epilogue") {
  IE_REQUIRE_GPU();
  for (const char* act : {"Gelu", "GeluTanh", "Tanh", "Sigmoid"}) {
    check_linear({257, 10, 64}, 128, true, true, act);  // the SSA's MLP
    check_linear({3, 7}, 5, false, false, act);
  }
}

void check_matmul(Shape a_shape, Shape b_shape, bool b_const) {
  const std::string what =
      "MatMul " + shape_to_string(a_shape) + " x " + shape_to_string(b_shape) + (b_const ? " (B constant)" : "");
  const int64_t k = a_shape.back();
  check_matches_cpu(what, make_node("MatMul", {"a", "b"}, {"y"}),
                    {random_uniform(a_shape, seed_of(what, 1)), weight(b_shape, k, seed_of(what, 2))}, {false, b_const},
                    kFp32Gemm);
}

TEST_CASE("cuda MatMul: batched, tall, broadcast and vector operands") {
  IE_REQUIRE_GPU();
  for (int64_t b : {1, 3, 257}) {
    check_matmul({b, 4, 10, 16}, {b, 4, 16, 10}, false);  // attention scores (strided batched)
    check_matmul({b, 4, 10, 10}, {b, 4, 10, 16}, false);  // attention output
    check_matmul({b, 10, 64}, {64, 64}, true);            // shared weight: one tall GEMM
    check_matmul({b, 10, 64}, {64, 33}, false);
  }
  check_matmul({5, 7}, {3, 7, 9}, false);           // A broadcast with stride 0
  check_matmul({2, 1, 5, 7}, {1, 3, 7, 9}, false);  // mixed broadcast: one GEMM per batch
  check_matmul({3, 1, 5, 7}, {4, 7, 9}, true);
  check_matmul({3, 5, 7}, {7}, false);  // matrix x vector
  check_matmul({7}, {3, 7, 5}, false);  // vector x matrix
  check_matmul({7}, {7}, false);        // dot product
  check_matmul({1, 1}, {1, 1}, false);
}

TEST_CASE("cuda MatMul in tf32 (tolerance 1e-2)") {
  IE_REQUIRE_GPU();
  const std::string what = "MatMul tf32 [3, 65, 1024] x [3, 1024, 31]";
  check_matches_cpu(what, make_node("MatMul", {"a", "b"}, {"y"}),
                    {random_uniform({3, 65, 1024}, seed_of(what, 1)), weight({3, 1024, 31}, 1024, seed_of(what, 2))},
                    {false, false}, kTf32Gemm, 17, Precision::tf32);
}

}  // namespace
}  // namespace ie::test
