// Activations applied in fused kernels' epilogues on the device (LayerNorm + activation, Linear + activation).
// Depends on CUDA alone, like the kernel headers that include it. The host-side names and the CPU versions are
// in activation.h; kernels get their Act from there through a switch in their .cu file.
#pragma once

#include <cuda_runtime.h>

namespace ie::dev {

enum class Act : int { None = 0, Relu = 1, Gelu = 2, GeluTanh = 3, Tanh = 4, Sigmoid = 5 };

// 1 / x by the special-function unit alone (rcp.approx: within 1 ulp, x >= 1 here): __frcp_rn adds a Newton step
// and a slow-path branch for an IEEE-rounded result the formula below does not need.
__device__ __forceinline__ float rcp_approx(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// GELU(x) = x * Phi(x), Phi(x) = erfc(-x / sqrt(2)) / 2, with erfc from Abramowitz & Stegun 7.1.26 (absolute
// error <= 1.5e-7 in erf): one reciprocal, one exponential and five FMAs, against ~30 instructions of erff,
// which made LN + GELU compute-bound (lab: bf16 at 44% of the copy bandwidth with erff). For x < 0 Phi is the
// small tail itself, so there is no cancellation.
__device__ __forceinline__ float gelu_erf(float x) {
  const float z = fabsf(x) * 0.70710678118654752f;
  const float t = rcp_approx(fmaf(0.3275911f, z, 1.f));
  float poly = fmaf(1.061405429f, t, -1.453152027f);
  poly = fmaf(poly, t, 1.421413741f);
  poly = fmaf(poly, t, -0.284496736f);
  poly = fmaf(poly, t, 0.254829592f);
  const float tail = 0.5f * poly * t * __expf(-z * z);  // erfc(z) / 2
  return x * (x < 0.f ? tail : 1.f - tail);
}

// 2^x by the special-function unit alone (ex2.approx: relative error <= 2^-22).
__device__ __forceinline__ float ex2_approx(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// GELU for fp16/bf16 products: x * sigmoid(p(x)), p odd of degree 5 fitted to Phi(x) (coefficients below carry
// the -log2(e) of the exponential), x clamped to [-8, 8] inside p only (p rises up to 8.36; beyond 8 sigmoid is 1
// or 0 to float precision; NaN still propagates through the last product). Absolute error <= 2.6e-5 against
// the exact GELU over all x (fitted and checked in float on a 2e5-point grid over [-10, 10]), 20x below an
// fp16 half-ulp at 1: 9 instructions, 2 of them on the special-function unit, against 16 for gelu_erf.
__device__ __forceinline__ float gelu_fast(float x) {
  const float c = fminf(fmaxf(x, -8.f), 8.f), t = c * c;
  const float p = fmaf(fmaf(0.0010142695f, t, -0.10677577f), t, -2.3011212f) * c;
  return x * rcp_approx(1.f + ex2_approx(p));
}

// GELU as (x / 2) (1 + tanh(x (a + b x^2))) on the special-function unit's tanh.approx (relative error 2^-11):
// a and b refitted to the exact GELU (minimax over [-10, 10]: 2.7e-4, against 4.7e-4 for the usual 0.79788 and
// 0.044715 x 0.79788), so about 1e-3 in all at |x| near 3 where tanh.approx's error dominates. 6 instructions, one
// on the special-function unit; no clamp (x (a + b x^2) is monotone and tanh saturates). Accurate enough for
// bf16 storage (a half-ulp is 2^-9 relative), not for fp16's: kernels choose it by the storage type.
__device__ __forceinline__ float gelu_tanh_approx(float x) {
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(x * fmaf(0.0347f, x * x, 0.80016f)));
  const float hx = 0.5f * x;
  return fmaf(hx, t, hx);
}

__device__ __forceinline__ float activate(Act a, float v) {
  switch (a) {
    case Act::Relu:
      return v < 0.f ? 0.f : v;  // keeps NaN, as the unfused Relu does
    case Act::Gelu:
      return gelu_erf(v);
    case Act::GeluTanh:
      return 0.5f * v * (1.f + tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)));
    case Act::Tanh:
      return tanhf(v);
    case Act::Sigmoid:
      return 1.f / (1.f + __expf(-v));
    default:
      return v;
  }
}

// The activation over a pack: one warp-uniform switch per pack, each case a straight unrolled loop.
template <int V>
__device__ __forceinline__ void activate_all(Act a, float (&r)[V]) {
#define IE_DEV_ACT_CASE(name)                                                       \
  case Act::name:                                                                   \
    _Pragma("unroll") for (int k = 0; k < V; ++k) r[k] = activate(Act::name, r[k]); \
    break;
  switch (a) {
    IE_DEV_ACT_CASE(Relu)
    IE_DEV_ACT_CASE(Gelu)
    IE_DEV_ACT_CASE(GeluTanh)
    IE_DEV_ACT_CASE(Tanh)
    IE_DEV_ACT_CASE(Sigmoid)
    default:
      break;
  }
#undef IE_DEV_ACT_CASE
}

}  // namespace ie::dev
