// Reshape and Flatten: new dims over the same C-ordered elements.
#include "engine/core/checked_math.h"
#include "engine/registry/op_def.h"
#include "layers/common/view_kernel.h"

namespace ie {
namespace {

void infer_reshape(InferContext& ctx) {
  const TensorInfo& in = ctx.input(0);
  // Reshape-1 and -4 took the shape as an attribute; since opset 5 it is input 1.
  Shape out = ctx.opset() < 5 ? ctx.attrs().get_ints("shape") : ctx.constant_ints(1, "the target shape");
  const bool allowzero = ctx.attrs().get_int("allowzero", 0) != 0;
  const int64_t n = numel_range(in.shape, 0, in.shape.size());
  int64_t infer_at = -1, known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t d = out[i];
    if (d == -1) {
      ctx.expect(infer_at < 0, "the target shape ", shape_to_string(out), " has more than one -1");
      infer_at = static_cast<int64_t>(i);
      continue;
    }
    ctx.expect(d >= 0, "the target shape ", shape_to_string(out), " has the invalid dim ", d);
    if (d == 0 && !allowzero) {
      ctx.expect(i < in.shape.size(), "the target shape ", shape_to_string(out), " copies dim ", i,
                 " (0), but the input ", shape_to_string(in.shape), " has only ", in.shape.size(), " dims");
      out[i] = in.shape[i];
    }
    known = checked_mul(known, out[i], ctx.node().label() + " target shape " + shape_to_string(out));
  }
  if (infer_at >= 0) {
    ctx.expect(known != 0, "cannot infer the -1 in the target shape ", shape_to_string(out),
               " when the other dims multiply to 0");
    ctx.expect(n % known == 0, "cannot reshape ", shape_to_string(in.shape), " (", n, " elements) to ",
               shape_to_string(out));
    out[infer_at] = n / known;
    known *= out[infer_at];
  }
  ctx.expect(known == n, "cannot reshape ", shape_to_string(in.shape), " (", n, " elements) to ", shape_to_string(out),
             " (", known, " elements)");
  ctx.set_output(0, in.dtype, out);
}

void infer_flatten(InferContext& ctx) {
  const TensorInfo& in = ctx.input(0);
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  int64_t axis = ctx.attrs().get_int("axis", 1);
  ctx.expect(axis >= -rank && axis <= rank, "axis ", axis, " is out of range for rank ", rank);
  if (axis < 0) axis += rank;
  ctx.set_output(0, in.dtype, {numel_range(in.shape, 0, axis), numel_range(in.shape, axis, rank)});
}

}  // namespace

IE_REGISTER_OPS(reshape) {
  OpRegistry::get().add(OpDef("", "Reshape", infer_reshape).view_of(0));
  OpRegistry::get().add(OpDef("", "Flatten", infer_flatten).view_of(0));
  OpRegistry::get().add_kernel("", "Reshape", kernel_set::kCpu, make_view_kernel);
  OpRegistry::get().add_kernel("", "Flatten", kernel_set::kCpu, make_view_kernel);
}

}  // namespace ie
