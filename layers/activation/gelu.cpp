// Gelu (opset 20): approximate="none" is 0.5 x (1 + erf(x / sqrt 2)); "tanh" is
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). Registered for every opset because the engine also uses it
// as the fused form of the decomposed GELU found in older models.
#include <cmath>

#include "layers/activation/gelu_setup.h"
#include "layers/common/unary.h"

namespace ie {
namespace {

template <class C>
C gelu_exact(C x) {
  return C(0.5) * x * (C(1) + std::erf(x * C(0.70710678118654752440)));
}

template <class C>
C gelu_tanh(C x) {
  return C(0.5) * x * (C(1) + std::tanh(C(0.79788456080286535588) * (x + C(0.044715) * x * x * x)));
}

struct Gelu {
  bool tanh;
  template <class C>
  C operator()(C x) const {
    return tanh ? gelu_tanh(x) : gelu_exact(x);
  }
};

}  // namespace

IE_REGISTER_OPS(gelu) {
  register_unary<TypeClass::Float>(
      "Gelu", [](const KernelInit& init) { return Gelu{tanh_approximation(init.node.attrs, init.node.label())}; });
  OpRegistry::get().set_cost("", "Gelu", per_element_cost(10));  // erf or tanh, a few multiplies
}

}  // namespace ie
