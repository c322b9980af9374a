// Elementwise math: Sqrt, Exp, Log, Erf, Reciprocal, Floor, Ceil, Round, trigonometric and hyperbolic
// functions on floats; Neg, Abs, Sign on numbers; IsNaN, IsInf with a bool output.
#include <cmath>
#include <type_traits>

#include "layers/common/unary.h"

namespace ie {
namespace {

// Ops without attributes over floats, written once per name.
#define IE_FLOAT_UNARY(NAME, EXPR)                               \
  register_unary<TypeClass::Float>(NAME, [](const KernelInit&) { \
    return [](auto x) {                                          \
      using C = decltype(x);                                     \
      (void)sizeof(C);                                           \
      return EXPR;                                               \
    };                                                           \
  })

void register_float_math() {
  IE_FLOAT_UNARY("Sqrt", std::sqrt(x));
  IE_FLOAT_UNARY("Exp", std::exp(x));
  IE_FLOAT_UNARY("Log", std::log(x));
  IE_FLOAT_UNARY("Erf", std::erf(x));
  IE_FLOAT_UNARY("Reciprocal", C(1) / x);
  IE_FLOAT_UNARY("Floor", std::floor(x));
  IE_FLOAT_UNARY("Ceil", std::ceil(x));
  IE_FLOAT_UNARY("Round", std::nearbyint(x));  // halves to even, as the default rounding mode does
  IE_FLOAT_UNARY("Sin", std::sin(x));
  IE_FLOAT_UNARY("Cos", std::cos(x));
  IE_FLOAT_UNARY("Tan", std::tan(x));
  IE_FLOAT_UNARY("Asin", std::asin(x));
  IE_FLOAT_UNARY("Acos", std::acos(x));
  IE_FLOAT_UNARY("Atan", std::atan(x));
  IE_FLOAT_UNARY("Sinh", std::sinh(x));
  IE_FLOAT_UNARY("Cosh", std::cosh(x));
  IE_FLOAT_UNARY("Asinh", std::asinh(x));
  IE_FLOAT_UNARY("Acosh", std::acosh(x));
  IE_FLOAT_UNARY("Atanh", std::atanh(x));
}
#undef IE_FLOAT_UNARY

void register_sign_ops() {
  register_unary<TypeClass::Signed>("Neg", [](const KernelInit&) { return [](auto x) { return -x; }; });
  register_unary<TypeClass::Numeric>("Abs", [](const KernelInit&) {
    return [](auto x) {
      using C = decltype(x);
      if constexpr (std::is_unsigned_v<C>) {
        return x;
      } else {
        return x < C(0) ? C(-x) : x;
      }
    };
  });
  register_unary<TypeClass::Numeric>("Sign", [](const KernelInit&) {
    return [](auto x) {
      using C = decltype(x);
      return x > C(0) ? C(1) : x < C(0) ? C(-1) : x;  // keeps 0 and NaN
    };
  });
}

void register_float_tests() {
  register_unary<TypeClass::Float, true>("IsNaN",
                                         [](const KernelInit&) { return [](auto x) { return std::isnan(x); }; });
  register_unary<TypeClass::Float, true>("IsInf", [](const KernelInit& init) {
    bool pos = init.node.attrs.get_int("detect_positive", 1) != 0;
    bool neg = init.node.attrs.get_int("detect_negative", 1) != 0;
    return [pos, neg](auto x) { return std::isinf(x) && (x > 0 ? pos : neg); };
  });
}

}  // namespace

IE_REGISTER_OPS(unary_math) {
  register_float_math();
  register_sign_ops();
  register_float_tests();
}

}  // namespace ie
