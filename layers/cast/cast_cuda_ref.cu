// Cast and CastLike on the device (cuda-reference) between float32, float16, bfloat16, float64, int8, uint8, int32,
// int64 and bool, with the CPU kernel's semantics (float to bfloat16 truncates the mantissa, as ONNX's reference): every value goes through double (float sources) or int64 (integer
// and bool sources); floats to integers truncate toward zero through int64 with NaN and out-of-range values pinned
// to INT64_MIN (as x86 does); anything to bool is "!= 0" (NaN is true); integers narrow modulo 2^bits.
// One thread per element, grid-stride; same-type casts are a device copy. uint16/32/64 are rejected.
#include <cstdint>
#include <type_traits>

#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"

namespace ie::cuda {
namespace {

template <class D, class W>
__device__ __forceinline__ D narrow(W w) {
  if constexpr (std::is_same_v<D, bool>) {
    return w != W(0);
  } else if constexpr (std::is_same_v<D, __half>) {
    return __float2half_rn(static_cast<float>(w));
  } else if constexpr (std::is_same_v<D, __nv_bfloat16>) {
    const float f = static_cast<float>(w);
    const unsigned bits = __float_as_uint(f);
    const unsigned short top = static_cast<unsigned short>(bits >> 16);
    return __ushort_as_bfloat16(isnan(f) ? static_cast<unsigned short>(top | 0x40) : top);  // NaN stays NaN
  } else if constexpr (std::is_floating_point_v<D>) {
    return static_cast<D>(w);
  } else if constexpr (std::is_floating_point_v<W>) {
    if (!(w > -9.2233720368547758e18 && w < 9.2233720368547758e18)) return static_cast<D>(INT64_MIN);
    return static_cast<D>(static_cast<int64_t>(w));
  } else {
    return static_cast<D>(w);
  }
}

template <class D, class S>
__device__ __forceinline__ D cast_value(S v) {
  if constexpr (std::is_same_v<S, __half>)
    return narrow<D>(static_cast<double>(__half2float(v)));
  else if constexpr (std::is_same_v<S, __nv_bfloat16>)
    return narrow<D>(static_cast<double>(__bfloat162float(v)));
  else if constexpr (std::is_floating_point_v<S>)
    return narrow<D>(static_cast<double>(v));
  else
    return narrow<D>(static_cast<int64_t>(v));
}

template <class S, class D>
__global__ void cast_kernel(const S* in, D* out, int64_t n) {
  for (int64_t i = grid_start<int64_t>(); i < n; i += grid_step<int64_t>()) out[i] = cast_value<D>(in[i]);
}

template <class Fn>
bool dispatch_cast(DType t, Fn&& fn) {
  return dispatch_device<float, __half, __nv_bfloat16, double, int8_t, uint8_t, int32_t, int64_t, bool>(t, fn);
}

std::unique_ptr<Kernel> make_cast(const KernelInit& init) {
  const DType from = init.inputs[0].dtype, to = init.outputs[0].dtype;
  if (from == to) {
    return make_kernel([](KernelContext& ctx) {
      const TensorRef& in = ctx.inputs[0];
      if (ctx.outputs[0].data != in.data && in.nbytes())
        IE_CUDA_CHECK(
            cudaMemcpyAsync(ctx.outputs[0].data, in.data, in.nbytes(), cudaMemcpyDeviceToDevice, stream_of(ctx)));
    });
  }
  std::unique_ptr<Kernel> k;
  dispatch_cast(from, [&](auto src) {
    using S = typename decltype(src)::type;
    dispatch_cast(to, [&](auto dst) {
      using D = typename decltype(dst)::type;
      k = make_kernel([](KernelContext& ctx) {
        const int64_t n = ctx.inputs[0].numel();
        if (n == 0) return;
        cast_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(ctx.inputs[0].as<const S>(), ctx.outputs[0].as<D>(),
                                                                  n);
        IE_CUDA_CHECK_LAUNCH();
      });
    });
  });
  return k;
}

}  // namespace

IE_REGISTER_OPS(cast_cuda) {
  OpRegistry::get().add_kernel("", "Cast", kernel_set::kCudaReference, make_cast);
  OpRegistry::get().add_kernel("", "CastLike", kernel_set::kCudaReference, make_cast);
}

}  // namespace ie::cuda
