// Concat and Split on the device (cuda-reference): each input (Concat) or output (Split) is one strided box copy
// into or out of the big tensor, through the shared strided copy (strided_copy_cuda.h), which turns contiguous
// runs into 16-byte moves where alignment allows.
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/init_context.h"
#include "layers/common/strided_copy_cuda.h"
#include "layers/concat/concat_setup.h"

namespace ie::cuda {
namespace {

std::unique_ptr<Kernel> make_concat(const KernelInit& init) {
  const int64_t axis = concat_axis(init.node, init.opset, static_cast<int64_t>(init.outputs[0].shape.size()));
  const size_t elem = dtype_size(init.outputs[0].dtype);
  if (!copyable_size(elem)) return nullptr;
  return make_kernel([axis, elem](KernelContext& ctx) {
    const TensorRef& out = ctx.outputs[0];
    const std::vector<int64_t> out_strides = strides_of(out.shape);
    int64_t offset = 0;
    for (const TensorRef& in : ctx.inputs) {
      char* dst = static_cast<char*>(out.data) + offset * out_strides[axis] * static_cast<int64_t>(elem);
      strided_copy(elem, in.shape, dst, out_strides, in.data, strides_of(in.shape), stream_of(ctx));
      offset += in.shape[axis];
    }
  });
}

std::unique_ptr<Kernel> make_split(const KernelInit& init) {
  const SplitPlan p = plan_split(InitContext(init).ctx);
  const size_t elem = dtype_size(init.inputs[0].dtype);
  if (!copyable_size(elem)) return nullptr;
  return make_kernel([p, elem](KernelContext& ctx) {
    const TensorRef& in = ctx.inputs[0];
    const std::vector<int64_t> in_strides = strides_of(in.shape);
    int64_t offset = 0;
    for (size_t i = 0; i < p.sizes.size(); ++i) {
      const TensorRef& out = ctx.outputs[i];
      if (out.present()) {
        const char* src = static_cast<const char*>(in.data) + offset * in_strides[p.axis] * static_cast<int64_t>(elem);
        strided_copy(elem, out.shape, out.data, strides_of(out.shape), src, in_strides, stream_of(ctx));
      }
      offset += p.sizes[i];
    }
  });
}

}  // namespace

IE_REGISTER_OPS(concat_cuda) {
  OpRegistry::get().add_kernel("", "Concat", kernel_set::kCudaReference, make_concat);
  OpRegistry::get().add_kernel("", "Split", kernel_set::kCudaReference, make_split);
}

}  // namespace ie::cuda
