// The view ops on the device (cuda-reference): Reshape, Flatten, Squeeze, Unsqueeze and Identity keep the bytes,
// so the output either shares the input's buffer (the planner aliased them) or gets one device-to-device copy on
// the kernel's stream.
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"

namespace ie::cuda {
namespace {

std::unique_ptr<Kernel> make_view(const KernelInit&) {
  return make_kernel([](KernelContext& ctx) {
    const TensorRef& in = ctx.inputs[0];
    const TensorRef& out = ctx.outputs[0];
    if (out.data != in.data && out.nbytes())
      IE_CUDA_CHECK(cudaMemcpyAsync(out.data, in.data, out.nbytes(), cudaMemcpyDeviceToDevice, stream_of(ctx)));
  });
}

}  // namespace

IE_REGISTER_OPS(view_cuda) {
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"})
    OpRegistry::get().add_kernel("", op, kernel_set::kCudaReference, make_view);
}

}  // namespace ie::cuda
