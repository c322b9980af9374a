#include "tests/ops/nn_test_util.h"

using namespace ie;
using namespace ie::test;

TEST_CASE("Gemm transA, transB, alpha, beta with a [N] bias") {
  Attributes a;
  a.set_int("transA", 1); a.set_int("transB", 1); a.set_float("alpha", 0.7f); a.set_float("beta", -1.3f);
  auto y = run_node_cpu(make_node("Gemm", {"i0", "i1", "i2"}, {"o0"}, a, ""),
                         {tensor(DType::Float32, {5, 3}, {0.25, 0.794, 0.551, -0.55, -0.4, 0.747, -0.989, 0.642, 0.594, -0.064, -0.394, -0.443, -0.49, -0.11, 0.009}),
                          tensor(DType::Float32, {4, 5}, {0.107, 0.991, 0.585, 0.244, 0.978, -0.569, -0.68, 0.225, -0.912, -0.929, 0.03, -0.068, 0.834, 0.258, 0.028, -0.006, -0.505, -0.976, -0.615, 0.384}),
                          tensor(DType::Float32, {4}, {-0.599, -0.261, -0.993, 0.66})}, 17);
  check_close(y[0], {3, 4}, {-0.3354908, 0.7052621, 0.7237893, -0.09310013, 0.6809884, 0.6376274, 1.628101, -1.0185, 1.511904, 0.1347782, 1.533861, -1.337069}, 1e-4, 1e-5);
}

TEST_CASE("Gemm with a [M, 1] C") {
  Attributes a;
  a.set_int("transB", 1);
  auto y = run_node_cpu(make_node("Gemm", {"i0", "i1", "i2"}, {"o0"}, a, ""),
                         {tensor(DType::Float32, {3, 5}, {0.02, 0.694, 0.279, 0.484, -0.817, 0.082, 0.016, 0.743, -0.277, 0.196, -0.881, -0.225, -0.354, -0.7, 0.633}),
                          tensor(DType::Float32, {4, 5}, {0.107, 0.991, 0.585, 0.244, 0.978, -0.569, -0.68, 0.225, -0.912, -0.929, 0.03, -0.068, 0.834, 0.258, 0.028, -0.006, -0.505, -0.976, -0.615, 0.384}),
                          tensor(DType::Float32, {3, 1}, {-0.691, -0.465, 0.761})}, 17);
  check_close(y[0], {3, 4}, {-0.5188209, -0.79394, -0.40291, -1.925282, 0.1183849, -0.284823, 0.09005597, -0.9531209, 0.684942, 1.385982, 0.291758, 1.898987}, 1e-4, 1e-5);
}

TEST_CASE("Gemm without C") {
  Attributes a;
  
  auto y = run_node_cpu(make_node("Gemm", {"i0", "i1"}, {"o0"}, a, ""),
                         {tensor(DType::Float32, {3, 5}, {0.02, 0.694, 0.279, 0.484, -0.817, 0.082, 0.016, 0.743, -0.277, 0.196, -0.881, -0.225, -0.354, -0.7, 0.633}),
                          tensor(DType::Float32, {5, 2}, {-0.241, 0.957, 0.18, 0.21, 0.276, 0.353, -0.698, -0.119, -0.521, -0.195})}, 17);
  check_close(y[0], {3, 2}, {0.284929, 0.365086, 0.279416, 0.338856, 0.232924, -1.055464}, 1e-4, 1e-5);
}

TEST_CASE("Gemm float16") {
  Attributes a;
  
  auto y = run_node_cpu(make_node("Gemm", {"i0", "i1"}, {"o0"}, a, ""),
                         {tensor(DType::Float16, {3, 5}, {0.02000427, 0.6938477, 0.2790527, 0.4838867, -0.8168945, 0.08197021, 0.01600647, 0.7431641, -0.2770996, 0.1960449, -0.8808594, -0.2249756, -0.3540039, -0.7001953, 0.6328125}),
                          tensor(DType::Float16, {5, 2}, {-0.2409668, 0.9570312, 0.1800537, 0.2099609, 0.2758789, 0.3530273, -0.6982422, -0.1190186, -0.5209961, -0.1949463})}, 17);
  check_close(y[0], {3, 2}, {0.284929, 0.365086, 0.279416, 0.338856, 0.232924, -1.055464}, 1e-2, 1e-2);
}

TEST_CASE("Gemm rejects mismatched inner dims and bad C") {
  Tensor a(DType::Float32, {3, 4}), b(DType::Float32, {5, 2}), b_ok(DType::Float32, {4, 2}), c(DType::Float32, {3, 3});
  CHECK_THROWS_WITH_AS(run_node_cpu(make_node("Gemm", {"a", "b"}, {"y"}), {a, b}), doctest::Contains("inner"), Error);
  CHECK_THROWS_WITH_AS(run_node_cpu(make_node("Gemm", {"a", "b", "c"}, {"y"}), {a, b_ok, c}),
                       doctest::Contains("broadcast"), Error);
}
