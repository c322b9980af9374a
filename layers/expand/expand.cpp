// Expand and Tile: the output reads the input through strides of 0 (Expand's broadcast dims, Tile's repeats).
#include "engine/core/checked_math.h"
#include "engine/registry/op_def.h"
#include "layers/common/strided_copy.h"

namespace ie {
namespace {

void infer_expand(InferContext& ctx) {
  const TensorInfo& in = ctx.input(0);
  Shape target = ctx.constant_ints(1, "the target shape");
  ctx.set_output(0, in.dtype, broadcast_shapes(in.shape, target, ctx.node().label()));
}

std::unique_ptr<Kernel> make_expand_cpu(const KernelInit& init) {
  return make_kernel([](KernelContext& ctx) {
    const TensorRef& in = ctx.inputs[0];
    const TensorRef& out = ctx.outputs[0];
    strided_copy(dtype_size(in.dtype), out.shape, out.data, strides_of(out.shape), in.data,
                 broadcast_strides(in.shape, out.shape));
  });
}

std::vector<int64_t> tile_repeats(const InferContext& ctx) {
  ctx.expect(ctx.opset() >= 6, "Tile before opset 6 (tiles and axis inputs) is not supported");
  std::vector<int64_t> repeats = ctx.constant_ints(1, "repeats");
  ctx.expect(repeats.size() == ctx.input(0).shape.size(), "repeats ", shape_to_string(repeats), " has ", repeats.size(),
             " entries for an input of rank ", ctx.input(0).shape.size());
  for (int64_t r : repeats) ctx.expect(r >= 0, "repeats ", shape_to_string(repeats), " has a negative entry");
  return repeats;
}

void infer_tile(InferContext& ctx) {
  std::vector<int64_t> repeats = tile_repeats(ctx);
  Shape out = ctx.input(0).shape;
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = checked_mul(out[i], repeats[i], ctx.node().label() + ": Tile output dim");
  ctx.set_output(0, ctx.input(0).dtype, out);
}

std::unique_ptr<Kernel> make_tile_cpu(const KernelInit& init) {
  return make_kernel([](KernelContext& ctx) {
    const TensorRef& in = ctx.inputs[0];
    const TensorRef& out = ctx.outputs[0];
    // Output dim i of size r*d is the pair (repeat, index) = [r, d] in C order; the repeat reads with stride 0.
    std::vector<int64_t> in_strides = strides_of(in.shape);
    Shape box;
    std::vector<int64_t> src;
    for (size_t i = 0; i < in.shape.size(); ++i) {
      box.push_back(in.shape[i] == 0 ? 0 : out.shape[i] / in.shape[i]);
      box.push_back(in.shape[i]);
      src.push_back(0);
      src.push_back(in_strides[i]);
    }
    strided_copy(dtype_size(in.dtype), box, out.data, strides_of(box), in.data, src);
  });
}

}  // namespace

IE_REGISTER_OPS(expand) {
  OpRegistry::get().add(OpDef("", "Expand", infer_expand));
  OpRegistry::get().add_kernel("", "Expand", kernel_set::kCpu, make_expand_cpu);
  OpRegistry::get().add(OpDef("", "Tile", infer_tile));
  OpRegistry::get().add_kernel("", "Tile", kernel_set::kCpu, make_tile_cpu);
}

}  // namespace ie
