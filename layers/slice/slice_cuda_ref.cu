// Slice on the device (cuda-reference): the plan (clamped starts, steps, negative steps included) is resolved once
// at plan time with the CPU op's plan_slice; the copy is one strided box read through the shared strided copy
// (strided_copy_cuda.h), with the source pointer moved to the first element and strides scaled by the steps.
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/init_context.h"
#include "layers/common/strided_copy_cuda.h"
#include "layers/slice/slice_setup.h"

namespace ie::cuda {
namespace {

std::unique_ptr<Kernel> make_slice(const KernelInit& init) {
  const SlicePlan p = plan_slice(InitContext(init).ctx);
  const size_t elem = dtype_size(init.inputs[0].dtype);
  if (!copyable_size(elem)) return nullptr;
  std::vector<int64_t> src_strides = strides_of(init.inputs[0].shape);
  int64_t offset = 0;
  for (size_t k = 0; k < src_strides.size(); ++k) {
    offset += p.start[k] * src_strides[k];
    src_strides[k] *= p.step[k];
  }
  const std::vector<int64_t> dst_strides = strides_of(p.out);
  return make_kernel([p, elem, src_strides, dst_strides, offset](KernelContext& ctx) {
    const char* src = static_cast<const char*>(ctx.inputs[0].data) + offset * static_cast<int64_t>(elem);
    strided_copy(elem, p.out, ctx.outputs[0].data, dst_strides, src, src_strides, stream_of(ctx));
  });
}

}  // namespace

IE_REGISTER_OPS(slice_cuda) { OpRegistry::get().add_kernel("", "Slice", kernel_set::kCudaReference, make_slice); }

}  // namespace ie::cuda
