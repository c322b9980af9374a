// Shape and Size: their values follow from the input's shape, so inference hands them to the planner as constants.
#include <algorithm>

#include "engine/registry/op_def.h"
#include "layers/common/known_output_kernel.h"

namespace ie {
namespace {

void infer_shape(InferContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  // Opset 15 start/end: negative values count from the back, then both are clamped into [0, rank].
  auto clamp = [rank](int64_t v) { return std::min(std::max(v < 0 ? v + rank : v, int64_t(0)), rank); };
  int64_t start = clamp(ctx.attrs().get_int("start", 0));
  int64_t end = ctx.attrs().has("end") ? clamp(ctx.attrs().get_int("end", rank)) : rank;
  int64_t n = std::max(end - start, int64_t(0));
  Tensor out(DType::Int64, {n});
  std::copy(in.begin() + start, in.begin() + start + n, out.data_as<int64_t>());
  ctx.set_output_constant(0, out);
}

void infer_size(InferContext& ctx) {
  Tensor out(DType::Int64, {});
  *out.data_as<int64_t>() = numel_range(ctx.input(0).shape, 0, ctx.input(0).shape.size());
  ctx.set_output_constant(0, out);
}

}  // namespace

IE_REGISTER_OPS(shape) {
  OpRegistry::get().add(OpDef("", "Shape", infer_shape));
  OpRegistry::get().add(OpDef("", "Size", infer_size));
  OpRegistry::get().add_kernel("", "Shape", kernel_set::kCpu,
                               [](const KernelInit& i) { return make_known_output_kernel(i, infer_shape); });
  OpRegistry::get().add_kernel("", "Size", kernel_set::kCpu,
                               [](const KernelInit& i) { return make_known_output_kernel(i, infer_size); });
}

}  // namespace ie
