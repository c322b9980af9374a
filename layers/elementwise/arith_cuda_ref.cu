// Add, Sub, Mul, Div and Pow on the device (cuda-reference) for float32, float16, bfloat16 (the 16-bit types
// computed in float; Pow not in bfloat16), int32 and int64, with numpy broadcasting through the shared binary
// kernels (binary_cuda_ref.cuh). Integer Div truncates toward zero, x / 0 gives 0 and MIN / -1 wraps, as on the
// CPU. Pow takes a float32/float16 base with a float32, float16, int32 or int64 exponent; integer bases are left
// to the CPU.
#include <type_traits>

#include "engine/registry/op_def.h"
#include "layers/elementwise/binary_cuda_ref.cuh"

namespace ie::cuda {
namespace {

struct AddOp {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return a + b;
  }
};
struct SubOp {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return a - b;
  }
};
struct MulOp {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return a * b;
  }
};
struct DivOp {
  template <class C>
  __device__ C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return C(0);
      if (b == C(-1)) return static_cast<C>(std::make_unsigned_t<C>(0) - static_cast<std::make_unsigned_t<C>>(a));
      return a / b;
    } else {
      return a / b;
    }
  }
};
struct PowOp {
  template <class CB>
  __device__ float operator()(float a, CB b) const {
    return powf(a, static_cast<float>(b));
  }
};

template <class Op>
std::unique_ptr<Kernel> make_arith(const KernelInit& init) {
  if (init.inputs[1].dtype != init.inputs[0].dtype) return nullptr;
  std::unique_ptr<Kernel> k;
  dispatch_device<float, __half, __nv_bfloat16, int32_t, int64_t>(init.inputs[0].dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    k = make_binary_cuda<T, T, T>(init, Op{});
  });
  return k;
}

std::unique_ptr<Kernel> make_pow(const KernelInit& init) {
  std::unique_ptr<Kernel> k;
  dispatch_device<float, __half>(init.inputs[0].dtype, [&](auto base) {
    using TA = typename decltype(base)::type;
    dispatch_device<float, __half, int32_t, int64_t>(init.inputs[1].dtype, [&](auto exponent) {
      using TB = typename decltype(exponent)::type;
      k = make_binary_cuda<TA, TB, TA>(init, PowOp{});
    });
  });
  return k;
}

}  // namespace

IE_REGISTER_OPS(arith_cuda) {
  OpRegistry::get().add_kernel("", "Add", kernel_set::kCudaReference, make_arith<AddOp>);
  OpRegistry::get().add_kernel("", "Sub", kernel_set::kCudaReference, make_arith<SubOp>);
  OpRegistry::get().add_kernel("", "Mul", kernel_set::kCudaReference, make_arith<MulOp>);
  OpRegistry::get().add_kernel("", "Div", kernel_set::kCudaReference, make_arith<DivOp>);
  OpRegistry::get().add_kernel("", "Pow", kernel_set::kCudaReference, make_pow);
}

}  // namespace ie::cuda
