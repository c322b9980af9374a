#include <cmath>

#include "tests/ops/op_test_util.h"

using namespace ie;
using namespace ie::test;

namespace {

const std::vector<double> kX = {-2.5, -1, -0.3, 0, 0.4, 1.5, 3};

Tensor x_as(DType t) {
  if (t == DType::Float16) return tensor<half>({7}, kX);
  if (t == DType::Float64) return tensor<double>({7}, kX);
  return tensor<float>({7}, kX);
}

void check_unary(const char* op, const std::vector<double>& expected, Attributes attrs = {}) {
  for (DType t : {DType::Float32, DType::Float64, DType::Float16}) {
    INFO(op, " on ", dtype_name(t));
    double tol = t == DType::Float16 ? 2e-3 : 1e-6;
    check_tensor(run1(op, {x_as(t)}, attrs), t, {7}, expected, tol, tol);
  }
}

Attributes alpha_beta(float alpha, float beta = NAN) {
  Attributes a;
  a.set_float("alpha", alpha);
  if (!std::isnan(beta)) a.set_float("beta", beta);
  return a;
}

}  // namespace

TEST_CASE("activations match numpy on float32, float64 and float16") {
  check_unary("Relu", {0, 0, 0, 0, 0.4, 1.5, 3});
  check_unary("Sigmoid", {0.07585818, 0.268941421, 0.425557483, 0.5, 0.59868766, 0.817574476, 0.952574127});
  check_unary("Tanh", {-0.986614298, -0.761594156, -0.291312612, 0, 0.379948962, 0.905148254, 0.995054754});
  check_unary("Softplus", {0.0788897343, 0.313261688, 0.554355244, 0.693147181, 0.913015252, 1.70141328, 3.04858735});
  check_unary("Softsign", {-0.714285714, -0.5, -0.230769231, 0, 0.285714286, 0.6, 0.75});
  check_unary("Elu", {-0.458957501, -0.316060279, -0.12959089, 0, 0.4, 1.5, 3}, alpha_beta(0.5f));
  check_unary("Selu", {-1.61378576, -1.11133074, -0.455667317, 0, 0.420280409, 1.57605153, 3.15210307});
  check_unary("Celu", {-1.42699041, -0.786938681, -0.278584047, 0, 0.4, 1.5, 3}, alpha_beta(2.0f));
  check_unary("HardSigmoid", {0, 0.1, 0.31, 0.4, 0.52, 0.85, 1}, alpha_beta(0.3f, 0.4f));
  check_unary("HardSwish", {-0.208333333, -0.333333333, -0.135, 0, 0.226666667, 1.125, 3});
  check_unary("LeakyRelu", {-0.025, -0.01, -0.003, 0, 0.4, 1.5, 3});
  check_unary("ThresholdedRelu", {0, 0, 0, 0, 0, 1.5, 3}, alpha_beta(0.4f));
  check_unary("Mish", {-0.196816204, -0.303401461, -0.151133177, 0, 0.289030534, 1.40337827, 2.986535});
}

TEST_CASE("clamping activations keep NaN") {
  Tensor x = tensor<float>({2}, {NAN, -1});
  check_tensor(run1("Relu", {x}), DType::Float32, {2}, {NAN, 0});
  check_tensor(run1("HardSigmoid", {x}), DType::Float32, {2}, {NAN, 0.3});
  check_tensor(run1("HardSwish", {x}), DType::Float32, {2}, {NAN, -0.333333333});
}

TEST_CASE("Gelu exact and tanh forms") {
  check_unary("Gelu", {-0.0155241633, -0.158655254, -0.114626573, 0, 0.262168697, 1.3997892, 2.99595031});
  Attributes tanh_form;
  tanh_form.set_string("approximate", "tanh");
  check_unary("Gelu", {-0.0150842661, -0.158808009, -0.114629076, 0, 0.262161169, 1.39957158, 2.99636261}, tanh_form);
  // Older opsets too: the engine uses Gelu as the fused form of the decomposed pattern.
  check_tensor(run1("Gelu", {x_as(DType::Float32)}, {}, 13), DType::Float32, {7},
               {-0.0155241633, -0.158655254, -0.114626573, 0, 0.262168697, 1.3997892, 2.99595031});
  Attributes bad;
  bad.set_string("approximate", "fast");
  CHECK_THROWS_WITH_AS(run1("Gelu", {x_as(DType::Float32)}, bad), doctest::Contains("\"none\" or \"tanh\""), Error);
}

TEST_CASE("unary math on floats") {
  check_unary("Erf", {-0.999593048, -0.842700793, -0.328626759, 0, 0.428392355, 0.966105146, 0.99997791});
  check_unary("Exp", {0.0820849986, 0.367879441, 0.740818221, 1, 1.4918247, 4.48168907, 20.0855369});
  check_unary("Sin", {-0.598472144, -0.841470985, -0.295520207, 0, 0.389418342, 0.997494987, 0.141120008});
  check_unary("Atan", {-1.19028995, -0.785398163, -0.291456794, 0, 0.380506377, 0.982793723, 1.24904577});
  check_unary("Neg", {2.5, 1, 0.3, 0, -0.4, -1.5, -3});
  check_unary("Abs", {2.5, 1, 0.3, 0, 0.4, 1.5, 3});
  check_unary("Sign", {-1, -1, -1, 0, 1, 1, 1});
  Tensor y = tensor<float>({7}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7});
  check_tensor(run1("Round", {y}), DType::Float32, {7}, {-2, -2, -0, 0, 2, 2, 3});
  check_tensor(run1("Floor", {y}), DType::Float32, {7}, {-3, -2, -1, 0, 1, 2, 2});
  check_tensor(run1("Ceil", {y}), DType::Float32, {7}, {-2, -1, -0, 1, 2, 3, 3});
  check_tensor(run1("Sqrt", {tensor<double>({3}, {4, 2, -1})}), DType::Float64, {3}, {2, 1.41421356237, NAN});
  check_tensor(run1("Reciprocal", {tensor<float>({2}, {4, -0.5})}), DType::Float32, {2}, {0.25, -2});
  check_tensor(run1("Log", {tensor<float>({2}, {1, 0})}), DType::Float32, {2}, {0, -INFINITY});
  check_tensor(run1("IsNaN", {tensor<float>({3}, {NAN, 1, INFINITY})}), DType::Bool, {3}, {1, 0, 0});
  Attributes neg_only;
  neg_only.set_int("detect_positive", 0);
  check_tensor(run1("IsInf", {tensor<float>({3}, {-INFINITY, 1, INFINITY})}, neg_only), DType::Bool, {3}, {1, 0, 0});
}

TEST_CASE("integer unary ops and type checks") {
  check_tensor(run1("Relu", {tensor<int32_t>({3}, {-4, 0, 9})}), DType::Int32, {3}, {0, 0, 9});
  check_tensor(run1("Neg", {tensor<int8_t>({3}, {-128, 0, 9})}), DType::Int8, {3}, {-128, 0, -9});
  check_tensor(run1("Abs", {tensor<int64_t>({3}, {-4, 0, 9})}), DType::Int64, {3}, {4, 0, 9});
  check_tensor(run1("Sign", {tensor<int16_t>({3}, {-4, 0, 9})}), DType::Int16, {3}, {-1, 0, 1});
  CHECK_THROWS_WITH_AS(run1("Exp", {tensor<int32_t>({1}, {1})}), doctest::Contains("expected a float type"), Error);
  CHECK_THROWS_WITH_AS(run1("Neg", {tensor<uint8_t>({1}, {1})}), doctest::Contains("signed"), Error);
  CHECK_THROWS_WITH_AS(run1("Celu", {x_as(DType::Float32)}, alpha_beta(0.0f)), doctest::Contains("alpha"), Error);
}

TEST_CASE("PRelu broadcasts the slope to X") {
  Tensor x = tensor<float>({2, 3, 2}, {-6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5});
  Tensor slope = tensor<float>({3, 1}, {0.1, 0.2, 0.3});
  check_tensor(run1("PRelu", {x, slope}), DType::Float32, {2, 3, 2},
               {-0.6, -0.5, -0.8, -0.6, -0.6, -0.3, 0, 1, 2, 3, 4, 5});
  CHECK_THROWS_WITH_AS(run1("PRelu", {tensor<float>({3}, {1, 2, 3}), slope}), doctest::Contains("does not broadcast"),
                       Error);
}

TEST_CASE("unary ops run in parallel on big tensors") {
  const int64_t n = 300007;
  Tensor x(DType::Float32, {n});
  for (int64_t i = 0; i < n; ++i) x.data_as<float>()[i] = static_cast<float>(i % 17) - 8.0f;
  Tensor y = run1("Relu", {x});
  bool ok = true;
  for (int64_t i = 0; i < n; ++i) ok = ok && y.data_as<float>()[i] == std::max(0.0f, x.data_as<float>()[i]);
  CHECK(ok);
}
