// Transpose on the device (cuda-reference): the permuted copy goes through the shared strided copy
// (strided_copy_cuda.h), which moves swaps of the two innermost dims through 32x32 shared-memory tiles and
// everything else with one thread per output element (coalesced writes).
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/strided_copy_cuda.h"
#include "layers/transpose/transpose_setup.h"

namespace ie::cuda {
namespace {

std::unique_ptr<Kernel> make_transpose(const KernelInit& init) {
  const Shape in = init.inputs[0].shape;
  const std::vector<int64_t> perm = read_perm(init.node, in.size());
  const size_t elem = dtype_size(init.inputs[0].dtype);
  if (!copyable_size(elem)) return nullptr;
  const std::vector<int64_t> in_strides = strides_of(in);
  Shape out(perm.size());
  std::vector<int64_t> src_strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    out[i] = in[perm[i]];
    src_strides[i] = in_strides[perm[i]];
  }
  const std::vector<int64_t> dst_strides = strides_of(out);
  return make_kernel([=](KernelContext& ctx) {
    strided_copy(elem, out, ctx.outputs[0].data, dst_strides, ctx.inputs[0].data, src_strides, stream_of(ctx));
  });
}

}  // namespace

IE_REGISTER_OPS(transpose_cuda) { OpRegistry::get().add_kernel("", "Transpose", kernel_set::kCudaReference, make_transpose); }

}  // namespace ie::cuda
