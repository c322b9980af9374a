// Element-wise activations that fused ops apply to their output in place (FusedConv, Linear, LayerNorm).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "engine/core/error.h"
#include "engine/core/parallel.h"

namespace ie {

enum class Activation { None, Relu, Gelu, GeluTanh, Tanh, Sigmoid };

/// Parses the `activation` attribute of a fused op; fails naming `where` on an unknown name.
inline Activation parse_activation(const std::string& name, const std::string& where) {
  if (name.empty() || name == "None") return Activation::None;
  if (name == "Relu") return Activation::Relu;
  if (name == "Gelu") return Activation::Gelu;
  if (name == "GeluTanh") return Activation::GeluTanh;  // Gelu with approximate = "tanh"
  if (name == "Tanh") return Activation::Tanh;
  if (name == "Sigmoid") return Activation::Sigmoid;
  fail_input(where, ": unknown activation '", name, "' (expected \"\", Relu, Gelu, GeluTanh, Tanh or Sigmoid)");
}

template <class T>
inline T activate(Activation a, T x) {
  switch (a) {
    case Activation::Relu: return x < T(0) ? T(0) : x;  // keeps NaN, as the unfused Relu does
    case Activation::Gelu: return x * T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440)));
    case Activation::GeluTanh:
      return x * T(0.5) * (T(1) + std::tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x)));
    case Activation::Tanh: return std::tanh(x);
    case Activation::Sigmoid: return T(1) / (T(1) + std::exp(-x));
    default: return x;
  }
}

/// Applies `a` to n contiguous values in place; the switch sits outside the loop so each loop vectorizes.
template <class T>
void apply_activation(Activation a, T* data, int64_t n) {
  if (a == Activation::None) return;
  auto run = [&](auto op) {
    parallel_for(n, 1 << 15, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) data[i] = op(data[i]);
    });
  };
  switch (a) {
    case Activation::Relu: run([](T x) { return activate(Activation::Relu, x); }); break;
    case Activation::Gelu: run([](T x) { return activate(Activation::Gelu, x); }); break;
    case Activation::GeluTanh: run([](T x) { return activate(Activation::GeluTanh, x); }); break;
    case Activation::Tanh: run([](T x) { return activate(Activation::Tanh, x); }); break;
    case Activation::Sigmoid: run([](T x) { return activate(Activation::Sigmoid, x); }); break;
    default: break;
  }
}

}  // namespace ie
