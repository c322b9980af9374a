// Squeeze and Unsqueeze: remove or insert dims of size 1. Their axes are an attribute before opset 13 and an input
// from opset 13 on.
#include "engine/registry/op_def.h"
#include "layers/common/axes.h"
#include "layers/common/view_kernel.h"

namespace ie {
namespace {

// Returns false when no axes were given (allowed for Squeeze only).
bool read_axes(const InferContext& ctx, std::vector<int64_t>& axes) {
  if (ctx.opset() < 13) {
    if (!ctx.attrs().has("axes")) return false;
    axes = ctx.attrs().get_ints("axes");
    return true;
  }
  if (!ctx.has_input(1)) return false;
  axes = ctx.constant_ints(1, "axes");
  return true;
}

void infer_squeeze(InferContext& ctx) {
  const TensorInfo& in = ctx.input(0);
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  std::vector<int64_t> axes;
  std::vector<bool> drop(in.shape.size(), false);
  if (read_axes(ctx, axes)) {
    for (int64_t a : normalize_axes(axes, rank, ctx.node().label())) {
      ctx.expect(in.shape[a] == 1, "cannot squeeze axis ", a, " of shape ", shape_to_string(in.shape),
                 ": its size is not 1");
      drop[a] = true;
    }
  } else {
    for (size_t i = 0; i < in.shape.size(); ++i) drop[i] = in.shape[i] == 1;
  }
  Shape out;
  for (size_t i = 0; i < in.shape.size(); ++i)
    if (!drop[i]) out.push_back(in.shape[i]);
  ctx.set_output(0, in.dtype, out);
}

void infer_unsqueeze(InferContext& ctx) {
  const TensorInfo& in = ctx.input(0);
  std::vector<int64_t> axes;
  ctx.expect(read_axes(ctx, axes), "needs axes");
  const int64_t out_rank = static_cast<int64_t>(in.shape.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t a : normalize_axes(axes, out_rank, ctx.node().label())) inserted[a] = true;
  Shape out;
  size_t next = 0;
  for (int64_t i = 0; i < out_rank; ++i) out.push_back(inserted[i] ? 1 : in.shape[next++]);
  ctx.set_output(0, in.dtype, out);
}

}  // namespace

IE_REGISTER_OPS(squeeze) {
  for (auto [name, infer] :
       {std::pair<const char*, InferFn>{"Squeeze", infer_squeeze}, {"Unsqueeze", infer_unsqueeze}}) {
    OpRegistry::get().add(OpDef("", name, infer).view_of(0));
    OpRegistry::get().add_kernel("", name, kernel_set::kCpu, make_view_kernel);
  }
}

}  // namespace ie
