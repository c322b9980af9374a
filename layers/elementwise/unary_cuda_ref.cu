// Pointwise unary ops on the device (cuda-reference): Relu, LeakyRelu, Tanh, Sigmoid, Gelu (exact and tanh),
// Sqrt, Exp, Log, Erf, Reciprocal, Neg, Abs and Clip.
//
// One thread moves one 16-byte pack per grid-stride step (input and output aligned; scalar tail), else one
// element. The op functor sees float for float16 and float32, the integer itself for int32/int64 (Relu, Neg,
// Abs, Clip). Formulas match the CPU kernels (Sigmoid branches on the sign so exp never overflows). Clip reads its
// optional min/max scalars (opset >= 11) from device memory inside the kernel, so nothing syncs.
#include <cfloat>
#include <climits>
#include <type_traits>

#include "engine/registry/op_def.h"
#include "layers/activation/gelu_setup.h"
#include "layers/common/cuda_util.cuh"

namespace ie::cuda {
namespace {

template <class T, int N, class Op>
__global__ void unary_packed_kernel(const T* in, T* out, int64_t n, Op op) {
  using C = dev_compute_t<T>;
  const int64_t packs = n / N;
  for (int64_t p = grid_start<int64_t>(); p < packs; p += grid_step<int64_t>()) {
    Pack<T, N> v = reinterpret_cast<const Pack<T, N>*>(in)[p];
#pragma unroll
    for (int k = 0; k < N; ++k) v.v[k] = convert<T>(op(convert<C>(v.v[k])));
    reinterpret_cast<Pack<T, N>*>(out)[p] = v;
  }
  for (int64_t i = packs * N + grid_start<int64_t>(); i < n; i += grid_step<int64_t>())
    out[i] = convert<T>(op(convert<C>(in[i])));
}

template <class T, class Op>
__global__ void unary_kernel(const T* in, T* out, int64_t n, Op op) {
  for (int64_t i = grid_start<int64_t>(); i < n; i += grid_step<int64_t>())
    out[i] = convert<T>(op(convert<dev_compute_t<T>>(in[i])));
}

template <class T, class Op>
void launch_unary(const T* in, T* out, int64_t n, Op op, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int N = pack_of<T>();
  if (aligned_to(in, 16) && aligned_to(out, 16))
    unary_packed_kernel<T, N><<<grid_for((n + N - 1) / N), kThreads, 0, stream>>>(in, out, n, op);
  else
    unary_kernel<<<grid_for(n), kThreads, 0, stream>>>(in, out, n, op);
  IE_CUDA_CHECK_LAUNCH();
}

/// Kernel for the input's type among Ts, or nullptr.
template <class... Ts, class Op>
std::unique_ptr<Kernel> make_unary(const KernelInit& init, Op op) {
  std::unique_ptr<Kernel> k;
  dispatch_device<Ts...>(init.inputs[0].dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    k = make_kernel([op](KernelContext& ctx) {
      launch_unary(ctx.inputs[0].as<const T>(), ctx.outputs[0].as<T>(), ctx.inputs[0].numel(), op, stream_of(ctx));
    });
  });
  return k;
}

// ---- ops -----------------------------------------------------------------------------------------------------

struct ReluOp {
  template <class C>
  __device__ C operator()(C x) const {
    return x < C(0) ? C(0) : x;
  }  // keeps NaN
};
struct LeakyReluOp {
  float alpha;
  __device__ float operator()(float x) const { return x < 0.f ? alpha * x : x; }
};
struct TanhOp {
  __device__ float operator()(float x) const { return tanhf(x); }
};
struct SigmoidOp {
  __device__ float operator()(float x) const {
    if (x >= 0.f) return 1.f / (1.f + expf(-x));
    const float e = expf(x);
    return e / (1.f + e);
  }
};
struct GeluOp {
  bool tanh_mode;
  __device__ float operator()(float x) const {
    if (tanh_mode) return 0.5f * x * (1.f + tanhf(0.79788456080286535588f * (x + 0.044715f * x * x * x)));
    return 0.5f * x * (1.f + erff(x * 0.70710678118654752440f));
  }
};
struct SqrtOp {
  __device__ float operator()(float x) const { return sqrtf(x); }
};
struct ExpOp {
  __device__ float operator()(float x) const { return expf(x); }
};
struct LogOp {
  __device__ float operator()(float x) const { return logf(x); }
};
struct ErfOp {
  __device__ float operator()(float x) const { return erff(x); }
};
struct ReciprocalOp {
  __device__ float operator()(float x) const { return 1.f / x; }
};
struct NegOp {
  template <class C>
  __device__ C operator()(C x) const {
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(std::make_unsigned_t<C>(0) - static_cast<std::make_unsigned_t<C>>(x));  // wraps
    else
      return -x;
  }
};
struct AbsOp {
  template <class C>
  __device__ C operator()(C x) const {
    if constexpr (std::is_integral_v<C>)
      return x < C(0) ? NegOp{}(x) : x;
    else
      return fabsf(x);
  }
};

// Bounds are the attributes (opset < 11) or optional scalar inputs read on the device; NaN passes through.
template <class T>
struct ClipOp {
  using C = dev_compute_t<T>;
  const T* lo_ptr;
  const T* hi_ptr;
  C lo, hi;
  __device__ C operator()(C x) const {
    const C l = lo_ptr ? convert<C>(*lo_ptr) : lo, h = hi_ptr ? convert<C>(*hi_ptr) : hi;
    const C y = x < l ? l : x;
    return y > h ? h : y;
  }
};

template <class T>
constexpr dev_compute_t<T> lowest_of() {
  if constexpr (std::is_same_v<T, int32_t>)
    return INT32_MIN;
  else if constexpr (std::is_same_v<T, int64_t>)
    return INT64_MIN;
  else
    return -FLT_MAX;
}
template <class T>
constexpr dev_compute_t<T> highest_of() {
  if constexpr (std::is_same_v<T, int32_t>)
    return INT32_MAX;
  else if constexpr (std::is_same_v<T, int64_t>)
    return INT64_MAX;
  else
    return FLT_MAX;
}

std::unique_ptr<Kernel> make_clip(const KernelInit& init) {
  const bool from_inputs = init.opset >= 11;
  const float attr_lo = init.node.attrs.get_float("min", -FLT_MAX);
  const float attr_hi = init.node.attrs.get_float("max", FLT_MAX);
  std::unique_ptr<Kernel> k;
  dispatch_device<float, __half, int32_t, int64_t>(init.inputs[0].dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = dev_compute_t<T>;
    const C lo = from_inputs ? lowest_of<T>() : static_cast<C>(attr_lo);
    const C hi = from_inputs ? highest_of<T>() : static_cast<C>(attr_hi);
    k = make_kernel([from_inputs, lo, hi](KernelContext& ctx) {
      auto bound = [&](size_t i) -> const T* {
        return from_inputs && ctx.inputs.size() > i && ctx.inputs[i].present() ? ctx.inputs[i].as<const T>() : nullptr;
      };
      launch_unary(ctx.inputs[0].as<const T>(), ctx.outputs[0].as<T>(), ctx.inputs[0].numel(),
                   ClipOp<T>{bound(1), bound(2), lo, hi}, stream_of(ctx));
    });
  });
  return k;
}

template <class Op>
std::unique_ptr<Kernel> make_float_unary(const KernelInit& init) {
  return make_unary<float, __half>(init, Op{});
}

template <class Op>
std::unique_ptr<Kernel> make_signed_unary(const KernelInit& init) {
  return make_unary<float, __half, int32_t, int64_t>(init, Op{});
}

}  // namespace

IE_REGISTER_OPS(unary_cuda) {
  auto& r = OpRegistry::get();
  const std::string b = kernel_set::kCudaReference;
  r.add_kernel("", "Relu", b, make_signed_unary<ReluOp>);
  r.add_kernel("", "Neg", b, make_signed_unary<NegOp>);
  r.add_kernel("", "Abs", b, make_signed_unary<AbsOp>);
  r.add_kernel("", "Tanh", b, make_float_unary<TanhOp>);
  r.add_kernel("", "Sigmoid", b, make_float_unary<SigmoidOp>);
  r.add_kernel("", "Sqrt", b, make_float_unary<SqrtOp>);
  r.add_kernel("", "Exp", b, make_float_unary<ExpOp>);
  r.add_kernel("", "Log", b, make_float_unary<LogOp>);
  r.add_kernel("", "Erf", b, make_float_unary<ErfOp>);
  r.add_kernel("", "Reciprocal", b, make_float_unary<ReciprocalOp>);
  r.add_kernel("", "LeakyRelu", b, [](const KernelInit& init) {
    return make_unary<float, __half>(init, LeakyReluOp{init.node.attrs.get_float("alpha", 0.01f)});
  });
  r.add_kernel("", "Gelu", b, [](const KernelInit& init) {
    return make_unary<float, __half>(init, GeluOp{tanh_approximation(init.node.attrs, init.node.label())});
  });
  r.add_kernel("", "Clip", b, make_clip);
}

}  // namespace ie::cuda
