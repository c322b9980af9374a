// Slice: a strided box of the input. Before opset 10 starts/ends/axes are attributes; from 10 on they are inputs,
// with optional axes and steps. Out-of-range starts and ends are clamped exactly as the ONNX spec says.
#include <algorithm>
#include <limits>

#include "engine/registry/op_def.h"
#include "layers/common/axes.h"
#include "layers/common/init_context.h"
#include "layers/common/strided_copy.h"
#include "layers/slice/slice_setup.h"

namespace ie {

SlicePlan plan_slice(const InferContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.attrs().get_ints("starts");
    ends = ctx.attrs().get_ints("ends");
    axes = ctx.attrs().get_ints("axes");
  } else {
    starts = ctx.constant_ints(1, "starts");
    ends = ctx.constant_ints(2, "ends");
    if (ctx.has_input(3)) axes = ctx.constant_ints(3, "axes");
    if (ctx.has_input(4)) steps = ctx.constant_ints(4, "steps");
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  ctx.expect(ends.size() == starts.size() && axes.size() == starts.size() && steps.size() == starts.size(),
             "starts, ends, axes and steps have different lengths (", starts.size(), ", ", ends.size(), ", ",
             axes.size(), ", ", steps.size(), ")");
  normalize_axes(axes, rank, ctx.node().label());  // rejects repeats

  SlicePlan p{in, std::vector<int64_t>(in.size(), 0), std::vector<int64_t>(in.size(), 1)};
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = normalize_axis(axes[i], rank, ctx.node().label()), dim = in[a];
    // INT64_MIN cannot be negated; any step beyond the dim takes one element either way.
    const int64_t step = std::max(steps[i], -std::numeric_limits<int64_t>::max());
    ctx.expect(step != 0, "step of axis ", a, " is 0");
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    int64_t count;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count = e > s ? (e - s - 1) / step + 1 : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count = s > e ? (s - e - 1) / -step + 1 : 0;
    }
    p.out[a] = count;
    p.start[a] = count > 0 ? s : 0;
    p.step[a] = step;
  }
  return p;
}

namespace {

void infer_slice(InferContext& ctx) { ctx.set_output(0, ctx.input(0).dtype, plan_slice(ctx).out); }

std::unique_ptr<Kernel> make_slice_cpu(const KernelInit& init) {
  SlicePlan p = plan_slice(InitContext(init).ctx);
  return make_kernel([p](KernelContext& ctx) {
    const TensorRef& in = ctx.inputs[0];
    const size_t elem = dtype_size(in.dtype);
    std::vector<int64_t> src_strides = strides_of(in.shape);
    int64_t offset = 0;
    for (size_t k = 0; k < src_strides.size(); ++k) {
      offset += p.start[k] * src_strides[k];
      src_strides[k] *= p.step[k];
    }
    strided_copy(elem, p.out, ctx.outputs[0].data, strides_of(p.out), static_cast<const char*>(in.data) + offset * elem,
                 src_strides);
  });
}

}  // namespace

IE_REGISTER_OPS(slice) {
  OpRegistry::get().add(OpDef("", "Slice", infer_slice));
  OpRegistry::get().add_kernel("", "Slice", kernel_set::kCpu, make_slice_cpu);
}

}  // namespace ie
