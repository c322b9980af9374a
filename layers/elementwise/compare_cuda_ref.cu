// Equal, Less, Greater, LessOrEqual, GreaterOrEqual on the device (cuda-reference): broadcasting comparisons
// with a bool output through the shared binary kernels (binary_cuda_ref.cuh). float32, float16 (compared in float),
// int32, int64; Equal also takes bool.
#include "engine/registry/op_def.h"
#include "layers/elementwise/binary_cuda_ref.cuh"

namespace ie::cuda {
namespace {

struct EqualOp {
  template <class C>
  __device__ bool operator()(C a, C b) const {
    return a == b;
  }
};
struct LessOp {
  template <class C>
  __device__ bool operator()(C a, C b) const {
    return a < b;
  }
};
struct GreaterOp {
  template <class C>
  __device__ bool operator()(C a, C b) const {
    return a > b;
  }
};
struct LessEqualOp {
  template <class C>
  __device__ bool operator()(C a, C b) const {
    return a <= b;
  }
};
struct GreaterEqualOp {
  template <class C>
  __device__ bool operator()(C a, C b) const {
    return a >= b;
  }
};

template <class Op, bool kWithBool = false>
std::unique_ptr<Kernel> make_compare(const KernelInit& init) {
  if (init.inputs[1].dtype != init.inputs[0].dtype) return nullptr;
  std::unique_ptr<Kernel> k;
  auto make = [&](auto tag) {
    using T = typename decltype(tag)::type;
    k = make_binary_cuda<T, T, bool>(init, Op{});
  };
  if constexpr (kWithBool)
    dispatch_device<float, __half, int32_t, int64_t, bool>(init.inputs[0].dtype, make);
  else
    dispatch_device<float, __half, int32_t, int64_t>(init.inputs[0].dtype, make);
  return k;
}

}  // namespace

IE_REGISTER_OPS(compare_cuda) {
  OpRegistry::get().add_kernel("", "Equal", kernel_set::kCudaReference, make_compare<EqualOp, true>);
  OpRegistry::get().add_kernel("", "Less", kernel_set::kCudaReference, make_compare<LessOp>);
  OpRegistry::get().add_kernel("", "Greater", kernel_set::kCudaReference, make_compare<GreaterOp>);
  OpRegistry::get().add_kernel("", "LessOrEqual", kernel_set::kCudaReference, make_compare<LessEqualOp>);
  OpRegistry::get().add_kernel("", "GreaterOrEqual", kernel_set::kCudaReference, make_compare<GreaterEqualOp>);
}

}  // namespace ie::cuda
