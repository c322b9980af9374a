// Pointwise activations with their ONNX attribute defaults: Relu, LeakyRelu, Elu, Selu, Celu, ThresholdedRelu,
// HardSigmoid, HardSwish, Sigmoid, Tanh, Softplus, Softsign, Mish, Shrink.
#include <cmath>

#include "layers/common/unary.h"

namespace ie {
namespace {

// exp(x) / (1 + exp(x)) without overflow for large |x|.
template <class C>
C sigmoid(C x) {
  if (x >= C(0)) return C(1) / (C(1) + C(std::exp(-x)));
  C e = C(std::exp(x));
  return e / (C(1) + e);
}

// Clamps to [0, 1] keeping NaN, as numpy's clip does.
template <class C>
C clamp01(C x) {
  C y = x < C(0) ? C(0) : x;
  return y > C(1) ? C(1) : y;
}

// log(1 + exp(x)) without overflow for large x.
template <class C>
C softplus(C x) {
  return x > C(0) ? C(x + C(std::log1p(std::exp(-x)))) : C(std::log1p(std::exp(x)));
}

void register_relu_family() {
  register_unary<TypeClass::Signed>("Relu", [](const KernelInit&) {
    return [](auto x) { return x < decltype(x)(0) ? decltype(x)(0) : x; };  // keeps NaN
  });
  register_unary<TypeClass::Float>("LeakyRelu", [](const KernelInit& init) {
    float alpha = init.node.attrs.get_float("alpha", 0.01f);
    return [alpha](auto x) {
      using C = decltype(x);
      return x < C(0) ? C(alpha) * x : x;
    };
  });
  register_unary<TypeClass::Float>("ThresholdedRelu", [](const KernelInit& init) {
    float alpha = init.node.attrs.get_float("alpha", 1.0f);
    return [alpha](auto x) {
      using C = decltype(x);
      return x > C(alpha) ? x : C(0);
    };
  });
  register_unary<TypeClass::Float>("Elu", [](const KernelInit& init) {
    float alpha = init.node.attrs.get_float("alpha", 1.0f);
    return [alpha](auto x) {
      using C = decltype(x);
      return x < C(0) ? C(alpha) * std::expm1(x) : x;
    };
  });
  register_unary<TypeClass::Float>("Selu", [](const KernelInit& init) {
    float alpha = init.node.attrs.get_float("alpha", 1.67326319217681884765625f);
    float gamma = init.node.attrs.get_float("gamma", 1.05070102214813232421875f);
    return [alpha, gamma](auto x) {
      using C = decltype(x);
      return x > C(0) ? C(gamma) * x : C(gamma) * C(alpha) * std::expm1(x);
    };
  });
  register_unary<TypeClass::Float>("Celu", [](const KernelInit& init) {
    float alpha = init.node.attrs.get_float("alpha", 1.0f);
    if (alpha == 0.0f) init.fail("attribute alpha must not be 0");
    return [alpha](auto x) {
      using C = decltype(x);
      return x > C(0) ? x : C(alpha) * std::expm1(x / C(alpha));
    };
  });
}

void register_smooth_family() {
  register_unary<TypeClass::Float>("Sigmoid", [](const KernelInit&) { return [](auto x) { return sigmoid(x); }; });
  register_unary<TypeClass::Float>("Tanh", [](const KernelInit&) { return [](auto x) { return std::tanh(x); }; });
  register_unary<TypeClass::Float>("Softplus", [](const KernelInit&) { return [](auto x) { return softplus(x); }; });
  register_unary<TypeClass::Float>(
      "Softsign", [](const KernelInit&) { return [](auto x) { return x / (decltype(x)(1) + std::abs(x)); }; });
  register_unary<TypeClass::Float>("Mish",
                                   [](const KernelInit&) { return [](auto x) { return x * std::tanh(softplus(x)); }; });
  register_unary<TypeClass::Float>("HardSigmoid", [](const KernelInit& init) {
    float alpha = init.node.attrs.get_float("alpha", 0.2f);
    float beta = init.node.attrs.get_float("beta", 0.5f);
    return [alpha, beta](auto x) {
      using C = decltype(x);
      return clamp01(C(alpha) * x + C(beta));
    };
  });
  register_unary<TypeClass::Float>("HardSwish", [](const KernelInit&) {
    return [](auto x) {
      using C = decltype(x);
      return x * clamp01(x / C(6) + C(0.5));
    };
  });
  register_unary<TypeClass::Numeric>("Shrink", [](const KernelInit& init) {
    float lambd = init.node.attrs.get_float("lambd", 0.5f);
    float bias = init.node.attrs.get_float("bias", 0.0f);
    return [lambd, bias](auto x) {
      using C = decltype(x);
      // Integer inputs are compared with the float thresholds, as the reference does.
      double v = static_cast<double>(x);
      return v < -lambd ? C(v + bias) : v > lambd ? C(v - bias) : C(0);
    };
  });
}

}  // namespace

IE_REGISTER_OPS(activations) {
  register_relu_family();
  register_smooth_family();
}

}  // namespace ie
