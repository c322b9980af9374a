// Elementwise ops on cuda-reference against the CPU backend: broadcasting binary ops, comparisons, Where, unary
// math and activations, Clip and Cast, on odd shapes (tails after 16-byte packs, batch 1, a large row count).
#include <cmath>
#include <string>
#include <vector>

#include "cuda_op_compare.h"

namespace ie::test {
namespace {

constexpr double kF32Atol = 1e-6, kF32Rtol = 1e-5;    // fp32 elementwise
constexpr double kF16Atol = 1e-3, kF16Rtol = 1e-3;    // float16: one rounding of the float result may differ
constexpr double kBf16Atol = 8e-3, kBf16Rtol = 8e-3;  // bfloat16: the same with 8 significant bits
constexpr double kExactAtol = 1e-9, kExactRtol = 0;   // integers and bools must match exactly

struct ShapePair {
  std::vector<int64_t> a, b;
};

const std::vector<ShapePair> kBroadcastCases = {
    {{7, 13, 5}, {7, 13, 5}},  // same shape
    {{7, 13, 5}, {1}},         // scalar b
    {{1}, {7, 13, 5}},         // scalar a
    {{3, 1, 5}, {4, 1}},       // both broadcast
    {{50001, 33}, {33}},       // row broadcast, many rows
    {{9, 17}, {9, 1}},         // column broadcast
    {{1, 1001}, {1, 1001}},    // batch 1
    {{2, 3, 1, 4, 1, 6}, {3, 5, 1, 7, 6}},
};

std::string label(const std::string& op, DType t, const ShapePair& s) {
  return op + " " + dtype_name(t) + " " + shape_to_string(s.a) + " x " + shape_to_string(s.b);
}

TEST_CASE("cuda-reference Add/Sub/Mul/Div match the CPU with broadcasting") {
  IE_REQUIRE_GPU();
  unsigned seed = 1;
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (DType t : {DType::Float32, DType::Float16, DType::BFloat16, DType::Int32, DType::Int64}) {
      for (const ShapePair& s : kBroadcastCases) {
        const bool is_int = is_integer(t);
        Tensor a = random_tensor(t, s.a, seed++, is_int ? -1000 : -2, is_int ? 1000 : 2);
        // Divisors kept away from 0 (integer division by 0 is defined as 0 on both, but floats would be inf).
        Tensor b = random_tensor(t, s.b, seed++, is_int ? 1 : 0.5, is_int ? 97 : 2);
        const double atol = is_int                 ? kExactAtol
                            : t == DType::Float16  ? kF16Atol
                            : t == DType::BFloat16 ? kBf16Atol
                                                   : kF32Atol;
        const double rtol = is_int                 ? kExactRtol
                            : t == DType::Float16  ? kF16Rtol
                            : t == DType::BFloat16 ? kBf16Rtol
                                                   : kF32Rtol;
        expect_matches_cpu(label(op, t, s), make_node(op, {"a", "b"}, {"y"}), {a, b}, {}, 17, atol, rtol);
      }
    }
  }
}

TEST_CASE("cuda-reference integer Div truncates toward zero and gives 0 for x / 0") {
  IE_REQUIRE_GPU();
  Tensor a = random_tensor(DType::Int64, {7, 13, 5}, 11, -50, 50);
  Tensor b = random_tensor(DType::Int64, {13, 5}, 12, -3, 3);  // includes 0 and -1
  expect_matches_cpu("Div int64 with zero divisors", make_node("Div", {"a", "b"}, {"y"}), {a, b}, {}, 17, kExactAtol,
                     kExactRtol);
}

TEST_CASE("cuda-reference Pow matches the CPU") {
  IE_REQUIRE_GPU();
  Tensor base = random_tensor(DType::Float32, {7, 13, 5}, 21, 0.5, 2);
  Tensor exp_same = random_tensor(DType::Float32, {7, 13, 5}, 22, -2, 2);
  Tensor exp_row = random_tensor(DType::Float32, {5}, 23, -2, 2);
  Node pow = make_node("Pow", {"x", "e"}, {"y"});
  expect_matches_cpu("Pow same shape", pow, {base, exp_same}, {}, 17, kF32Atol, kF32Rtol);
  expect_matches_cpu("Pow row exponent", pow, {base, exp_row}, {}, 17, kF32Atol, kF32Rtol);
  expect_matches_cpu("Pow scalar 2 (constant)", pow, {base, float_tensor({}, {2.f})}, {false, true}, 17, kF32Atol,
                     kF32Rtol);
  expect_matches_cpu("Pow scalar 3 int64", pow, {base, int64_tensor({1}, {3})}, {false, true}, 17, kF32Atol, kF32Rtol);
  Tensor neg_base = random_tensor(DType::Float32, {33, 7}, 24, -2, 2);
  expect_matches_cpu("Pow negative base, fractional exponent (NaN where the CPU has NaN)", pow,
                     {neg_base, float_tensor({1}, {0.5f})}, {}, 17, kF32Atol, kF32Rtol);
}

TEST_CASE("cuda-reference comparisons match the CPU") {
  IE_REQUIRE_GPU();
  unsigned seed = 100;
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    for (DType t : {DType::Float32, DType::Float16, DType::Int32, DType::Int64}) {
      for (const ShapePair& s : kBroadcastCases) {
        // A small value range so that equal pairs occur.
        Tensor a = random_tensor(t, s.a, seed++, -3, 3);
        Tensor b = random_tensor(t, s.b, seed++, -3, 3);
        if (!is_integer(t)) {
          // Round to halves so floats also compare equal sometimes.
          dispatch_float(t, "round", [&](auto tag) {
            using T = typename decltype(tag)::type;
            for (Tensor* x : {&a, &b})
              for (int64_t i = 0; i < x->numel(); ++i)
                x->data_as<T>()[i] = static_cast<T>(std::round(2.f * static_cast<float>(x->data_as<T>()[i])) / 2.f);
          });
        }
        expect_matches_cpu(label(op, t, s), make_node(op, {"a", "b"}, {"y"}), {a, b}, {}, 17, kExactAtol, kExactRtol);
      }
    }
  }
  Tensor a = random_tensor(DType::Bool, {3, 1, 5}, 7), b = random_tensor(DType::Bool, {4, 1}, 8);
  expect_matches_cpu("Equal bool [3,1,5] x [4,1]", make_node("Equal", {"a", "b"}, {"y"}), {a, b}, {}, 17, kExactAtol,
                     kExactRtol);
}

TEST_CASE("cuda-reference Where matches the CPU with three-way broadcasting") {
  IE_REQUIRE_GPU();
  Node where = make_node("Where", {"c", "x", "y"}, {"out"});
  struct Case {
    std::vector<int64_t> c, x, y;
  };
  unsigned seed = 300;
  for (const Case& s :
       std::vector<Case>{{{3, 1, 5}, {4, 1}, {5}}, {{7, 13, 5}, {7, 13, 5}, {1}}, {{1}, {9, 11}, {9, 11}}}) {
    for (DType t : {DType::Float32, DType::Float16, DType::Int64}) {
      Tensor c = random_tensor(DType::Bool, s.c, seed++);
      Tensor x = random_tensor(t, s.x, seed++, -100, 100), y = random_tensor(t, s.y, seed++, -100, 100);
      expect_matches_cpu(std::string("Where ") + dtype_name(t) + " " + shape_to_string(s.c) + shape_to_string(s.x) +
                             shape_to_string(s.y),
                         where, {c, x, y}, {}, 17, kExactAtol, kExactRtol);
    }
  }
}

struct UnaryCase {
  const char* op;
  double lo, hi;  // input range where the op is defined
};

TEST_CASE("cuda-reference unary math and activations match the CPU") {
  IE_REQUIRE_GPU();
  const std::vector<UnaryCase> cases = {
      {"Relu", -2, 2}, {"Tanh", -4, 4},         {"Sigmoid", -20, 20}, {"Sqrt", 0.01, 9},
      {"Exp", -5, 5},  {"Log", 0.01, 9},        {"Neg", -2, 2},       {"Abs", -2, 2},
      {"Erf", -3, 3},  {"Reciprocal", 0.25, 4}, {"Gelu", -5, 5},      {"LeakyRelu", -2, 2},
  };
  unsigned seed = 500;
  for (const UnaryCase& c : cases) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{7, 13, 5}, {1, 100003}, {3}}) {
      for (DType t : {DType::Float32, DType::Float16}) {
        Tensor x = random_tensor(t, shape, seed++, c.lo, c.hi);
        const std::string what = std::string(c.op) + " " + dtype_name(t) + " " + shape_to_string(shape);
        const double atol = t == DType::Float16 ? kF16Atol : kF32Atol, rtol = t == DType::Float16 ? kF16Rtol : kF32Rtol;
        expect_matches_cpu(what, make_node(c.op, {"x"}, {"y"}), {x}, {}, 20, atol, rtol);
      }
    }
  }
  Attributes tanh_gelu;
  tanh_gelu.set_string("approximate", "tanh");
  expect_matches_cpu("Gelu approximate=tanh", make_node("Gelu", {"x"}, {"y"}, tanh_gelu),
                     {random_tensor(DType::Float32, {7, 13, 5}, 600, -5, 5)}, {}, 20, kF32Atol, kF32Rtol);
  Attributes alpha;
  alpha.set_float("alpha", 0.3f);
  expect_matches_cpu("LeakyRelu alpha=0.3", make_node("LeakyRelu", {"x"}, {"y"}, alpha),
                     {random_tensor(DType::Float32, {7, 13, 5}, 601, -2, 2)}, {}, 17, kF32Atol, kF32Rtol);
  for (const char* op : {"Relu", "Neg", "Abs"}) {
    for (DType t : {DType::Int32, DType::Int64}) {
      expect_matches_cpu(std::string(op) + " " + dtype_name(t), make_node(op, {"x"}, {"y"}),
                         {random_tensor(t, {7, 13, 5}, seed++, -1000, 1000)}, {}, 17, kExactAtol, kExactRtol);
    }
  }
}

TEST_CASE("cuda-reference Clip matches the CPU (inputs and attributes)") {
  IE_REQUIRE_GPU();
  Tensor x = random_tensor(DType::Float32, {7, 13, 5}, 700, -3, 3);
  expect_matches_cpu("Clip min/max constant inputs", make_node("Clip", {"x", "lo", "hi"}, {"y"}),
                     {x, float_tensor({}, {-0.5f}), float_tensor({}, {1.25f})}, {false, true, true}, 13, kF32Atol,
                     kF32Rtol);
  expect_matches_cpu("Clip min/max run-time inputs", make_node("Clip", {"x", "lo", "hi"}, {"y"}),
                     {x, float_tensor({}, {-1.5f}), float_tensor({}, {0.25f})}, {}, 13, kF32Atol, kF32Rtol);
  expect_matches_cpu("Clip max only", make_node("Clip", {"x", "", "hi"}, {"y"}), {x, Tensor(), float_tensor({}, {0.f})},
                     {false, false, true}, 13, kF32Atol, kF32Rtol);
  expect_matches_cpu("Clip no bounds", make_node("Clip", {"x"}, {"y"}), {x}, {}, 13, kF32Atol, kF32Rtol);
  Attributes bounds;
  bounds.set_float("min", -1.f);
  bounds.set_float("max", 2.f);
  expect_matches_cpu("Clip opset 6 attributes", make_node("Clip", {"x"}, {"y"}, bounds), {x}, {}, 6, kF32Atol,
                     kF32Rtol);
  Tensor xi = random_tensor(DType::Int64, {9, 11}, 701, -100, 100);
  expect_matches_cpu("Clip int64", make_node("Clip", {"x", "lo", "hi"}, {"y"}),
                     {xi, int64_tensor({}, {-20}), int64_tensor({}, {30})}, {false, true, true}, 13, kExactAtol,
                     kExactRtol);
}

TEST_CASE("cuda-reference Cast matches the CPU between float32/float16/int32/int64/bool/uint8") {
  IE_REQUIRE_GPU();
  const std::vector<DType> types = {DType::Float32, DType::Float16, DType::Int32,
                                    DType::Int64,   DType::Bool,    DType::UInt8};
  unsigned seed = 800;
  for (DType from : types) {
    for (DType to : types) {
      // Values beyond 255 and negative ones exercise wrapping into uint8, as numpy does.
      const double lo = from == DType::UInt8 ? 0 : -300, hi = from == DType::UInt8 ? 255 : 300;
      Tensor x = random_tensor(from, {7, 13, 5}, seed++, lo, hi);
      Attributes to_attr;
      to_attr.set_int("to", static_cast<int64_t>(to));
      // float16 results may round once differently through float; every other pair is exact.
      const bool approx = to == DType::Float16 || (from == DType::Float16 && is_float(to));
      expect_matches_cpu(std::string("Cast ") + dtype_name(from) + " -> " + dtype_name(to),
                         make_node("Cast", {"x"}, {"y"}, to_attr), {x}, {}, 13, approx ? kF16Atol : kExactAtol,
                         approx ? kF16Rtol : kExactRtol);
    }
  }
}

}  // namespace
}  // namespace ie::test
