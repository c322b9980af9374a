#include <cstring>

#include "tests/ops/op_test_util.h"

using namespace ie;
using namespace ie::test;

namespace {

Tensor cast_to(const Tensor& x, DType to) {
  Attributes a;
  a.set_int("to", static_cast<int64_t>(to));
  return run1("Cast", {x}, a);
}

}  // namespace

TEST_CASE("Cast between numbers truncates, wraps and maps to bool like numpy") {
  Tensor f = tensor<float>({6}, {-2.7, -1, -0.5, 0, 1.9, 300});
  check_tensor(cast_to(f, DType::Int32), DType::Int32, {6}, {-2, -1, 0, 0, 1, 300});
  check_tensor(cast_to(f, DType::UInt8), DType::UInt8, {6}, {254, 255, 0, 0, 1, 44});
  check_tensor(cast_to(f, DType::Bool), DType::Bool, {6}, {1, 1, 1, 0, 1, 1});
  check_tensor(cast_to(f, DType::Float64), DType::Float64, {6}, {-2.7, -1, -0.5, 0, 1.9, 300}, 1e-7);
  check_tensor(cast_to(tensor<bool>({3}, {1, 0, 1}), DType::Float16), DType::Float16, {3}, {1, 0, 1});
  check_tensor(cast_to(tensor<int64_t>({3}, {-129, 255, 1000}), DType::Int8), DType::Int8, {3}, {127, -1, -24});
  check_tensor(cast_to(tensor<double>({2}, {0.1, 70000}), DType::Float16), DType::Float16, {2},
               {0.0999755859, INFINITY});
  check_tensor(cast_to(tensor<half>({2}, {0.5, -3}), DType::Int64), DType::Int64, {2}, {0, -3});
  check_tensor(cast_to(tensor<int32_t>({2}, {7, -7}), DType::Int32), DType::Int32, {2}, {7, -7});
}

TEST_CASE("Cast to bfloat16 truncates the mantissa") {
  Tensor bf = cast_to(tensor<float>({3}, {0.48033667, 1.0, -2.0}), DType::BFloat16);
  REQUIRE(bf.dtype() == DType::BFloat16);
  const uint16_t* bits = bf.data_as<uint16_t>();
  CHECK(bits[0] == 16117);
  CHECK(bits[1] == 0x3f80);
  CHECK(bits[2] == 0xc000);
  check_tensor(cast_to(bf, DType::Float32), DType::Float32, {3}, {0.478515625, 1, -2});
}

TEST_CASE("CastLike takes the type of its second input") {
  Tensor y = run1("CastLike", {tensor<float>({2}, {1.5, -2.5}), tensor<int16_t>({1}, {0})});
  check_tensor(y, DType::Int16, {2}, {1, -2});
}

TEST_CASE("Cast rejects strings and bad type codes") {
  Tensor f = tensor<float>({1}, {1});
  CHECK_THROWS_WITH_AS(cast_to(f, DType::String), doctest::Contains("string"), Error);
  Attributes bad;
  bad.set_int("to", 99);
  CHECK_THROWS_WITH_AS(run1("Cast", {f}, bad), doctest::Contains("to=99"), Error);
  CHECK_THROWS_WITH_AS(run1("Cast", {f}), doctest::Contains("'to' is required"), Error);
}
