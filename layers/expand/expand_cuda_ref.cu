// Expand and Tile on the device (cuda-reference): the output reads the input through strides of 0 (Expand's
// broadcast dims; Tile's repeat dims, each output dim split into [repeat, index]), one strided box copy through
// the shared strided copy (strided_copy_cuda.h). Box and strides are fixed at plan time.
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/strided_copy.h"
#include "layers/common/strided_copy_cuda.h"

namespace ie::cuda {
namespace {

struct Box {
  Shape shape;
  std::vector<int64_t> dst, src;
};

std::unique_ptr<Kernel> make_box_copy(const KernelInit& init, Box box) {
  const size_t elem = dtype_size(init.inputs[0].dtype);
  if (!copyable_size(elem)) return nullptr;
  return make_kernel([box, elem](KernelContext& ctx) {
    strided_copy(elem, box.shape, ctx.outputs[0].data, box.dst, ctx.inputs[0].data, box.src, stream_of(ctx));
  });
}

std::unique_ptr<Kernel> make_expand(const KernelInit& init) {
  const Shape& in = init.inputs[0].shape;
  const Shape& out = init.outputs[0].shape;
  return make_box_copy(init, Box{out, strides_of(out), broadcast_strides(in, out)});
}

std::unique_ptr<Kernel> make_tile(const KernelInit& init) {
  const Shape& in = init.inputs[0].shape;
  const Shape& out = init.outputs[0].shape;
  const std::vector<int64_t> in_strides = strides_of(in);
  Box box;
  for (size_t i = 0; i < in.size(); ++i) {
    box.shape.push_back(in[i] == 0 ? 0 : out[i] / in[i]);
    box.shape.push_back(in[i]);
    box.src.push_back(0);
    box.src.push_back(in_strides[i]);
  }
  box.dst = strides_of(box.shape);
  return make_box_copy(init, box);
}

}  // namespace

IE_REGISTER_OPS(expand_cuda) {
  OpRegistry::get().add_kernel("", "Expand", kernel_set::kCudaReference, make_expand);
  OpRegistry::get().add_kernel("", "Tile", kernel_set::kCudaReference, make_tile);
}

}  // namespace ie::cuda
