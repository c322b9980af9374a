// Element-wise activations that fused ops apply to their output in place (FusedConv, Linear, LayerNorm).
#pragma once

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#ifndef __CUDACC__  // CUDA sources see this header for the enum only
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
#endif

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

#ifndef __CUDACC__
/// Runs f on n floats as Eigen arrays, every value through Eigen's packet math, so the same bits wherever the data
/// lies: the aligned whole packets in place, the head before them and the tail after them through an aligned
/// block of 8. (On a plain Map the unaligned head and the tail take the scalar functions, whose last bits differ:
/// the determinism tests caught runs that differed with the buffers' addresses.) f takes `auto&`: an array of 8 or
/// of any length.
template <class F>
void in_packets(float* data, int64_t n, F&& f) {
  auto blocks = [&f](float* from, int64_t count) {
    for (int64_t i = 0; i < count; i += 8) {
      alignas(32) float block[8] = {};
      const int64_t m = count - i < 8 ? count - i : 8;
      std::copy(from + i, from + i + m, block);
      Eigen::Map<Eigen::Array<float, 8, 1>, Eigen::Aligned32> a(block);
      f(a);
      std::copy(block, block + m, from + i);
    }
  };
  const int64_t misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(data) % 32 / sizeof(float));
  const int64_t head = misaligned == 0 ? 0 : std::min<int64_t>(n, 8 - misaligned);
  const int64_t body = (n - head) / 8 * 8;
  blocks(data, head);
  if (body > 0) {
    Eigen::Map<Eigen::Array<float, Eigen::Dynamic, 1>, Eigen::Aligned32> a(data + head, body);
    f(a);
  }
  blocks(data + head + body, n - head - body);
}
#endif

/// Applies `a` to n contiguous values in place on the calling thread; the switch sits outside the loop so each
/// loop vectorizes. GELU on float goes through Eigen's vectorized erf: std::erf one value at a time was 80% of the
/// SSA's fc1 + GELU and LayerNorm + GELU steps on the CPU (2.7 ns a value).
template <class T>
void activate_span(Activation a, T* data, int64_t n) {
  if (a == Activation::None || n <= 0) return;
#ifndef __CUDACC__
  if constexpr (std::is_same_v<T, float>) {
    if (a == Activation::Gelu) {
      in_packets(data, n, [](auto& x) { x = x * 0.5f * (1.f + (x * 0.70710678118654752440f).erf()); });
      return;
    }
  }
#endif
  auto run = [&](auto op) {
    for (int64_t i = 0; i < n; ++i) data[i] = op(data[i]);
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

/// activate_span over n contiguous values, split across the engine's threads.
template <class T>
void apply_activation(Activation a, T* data, int64_t n) {
  if (a == Activation::None) return;
  parallel_for(n, 1 << 15, [&](int64_t b, int64_t e) { activate_span(a, data + b, e - b); });
}

}  // namespace ie
