// Pad: constant, reflect, edge or wrap padding; negative pads crop. Before opset 11 pads and value are attributes,
// from 11 on they are inputs (opset 18 adds an optional axes input). Each output dim maps to a source index (or to
// the constant), so every mode shares one loop.
#include <cstring>

#include "engine/core/checked_math.h"
#include "engine/core/dtype_dispatch.h"
#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/axes.h"
#include "layers/common/init_context.h"

namespace ie {
namespace {

enum class Mode { Constant, Reflect, Edge, Wrap };

struct PadPlan {
  Mode mode = Mode::Constant;
  std::vector<int64_t> begin, end;  // per input dim
  Shape out;
};

PadPlan plan_pad(const InferContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  PadPlan p;
  std::string mode = ctx.attrs().get_string("mode", "constant");
  if (mode == "constant")
    p.mode = Mode::Constant;
  else if (mode == "reflect")
    p.mode = Mode::Reflect;
  else if (mode == "edge")
    p.mode = Mode::Edge;
  else if (mode == "wrap")
    p.mode = Mode::Wrap;
  else
    ctx.fail("unknown mode '", mode, "' (expected constant, reflect, edge or wrap)");

  std::vector<int64_t> pads = ctx.opset() < 11 ? ctx.attrs().get_ints("pads") : ctx.constant_ints(1, "pads");
  std::vector<int64_t> axes;
  if (ctx.opset() >= 18 && ctx.has_input(3)) {
    axes = ctx.constant_ints(3, "axes");
    normalize_axes(axes, rank, ctx.node().label());
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  ctx.expect(pads.size() == 2 * axes.size(), "pads ", shape_to_string(pads), " should have ", 2 * axes.size(),
             " entries (begin and end of each padded axis)");
  p.begin.assign(in.size(), 0);
  p.end.assign(in.size(), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = normalize_axis(axes[i], rank, ctx.node().label());
    p.begin[a] = pads[i];
    p.end[a] = pads[i + axes.size()];
  }
  p.out = in;
  for (size_t a = 0; a < in.size(); ++a) {
    const std::string what = ctx.node().label() + ": padded dim " + std::to_string(a);
    p.out[a] = checked_add(checked_add(in[a], p.begin[a], what), p.end[a], what);
    ctx.expect(p.out[a] >= 0, "pads ", shape_to_string(pads), " crop more than the ", in[a], " elements of dim ", a);
    ctx.expect(p.mode == Mode::Constant || in[a] > 0 || p.out[a] == 0, "cannot pad the empty dim ", a, " in ", mode,
               " mode");
  }
  return p;
}

void infer_pad(InferContext& ctx) { ctx.set_output(0, ctx.input(0).dtype, plan_pad(ctx).out); }

// Source index along one dim for output index o, or -1 for the constant.
int64_t source_index(int64_t o, int64_t begin, int64_t dim, Mode mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < dim) return i;
  switch (mode) {
    case Mode::Constant:
      return -1;
    case Mode::Edge:
      return i < 0 ? 0 : dim - 1;
    case Mode::Wrap:
      return ((i % dim) + dim) % dim;
    case Mode::Reflect: {
      if (dim == 1) return 0;
      const int64_t period = 2 * (dim - 1);
      i = ((i % period) + period) % period;
      return i < dim ? i : period - i;
    }
  }
  return -1;
}

std::unique_ptr<Kernel> make_pad_cpu(const KernelInit& init) {
  PadPlan p = plan_pad(InitContext(init).ctx);
  const DType dtype = init.inputs[0].dtype;
  // The fill value as raw bytes: the attribute (float) before opset 11, else input 2 read at run time.
  uint64_t attr_value = 0;
  if (init.opset < 11) {
    float v = init.node.attrs.get_float("value", 0.f);
    dispatch_all(dtype, "Pad", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T t = static_cast<T>(v);
      std::memcpy(&attr_value, &t, sizeof(T));
    });
  }
  const Shape in_shape = init.inputs[0].shape;
  // Only the innermost dim gets a map (its length is bounded by the output, which the planner's limits checked);
  // the outer dims are resolved per row, so a huge padded dim never becomes a huge plan-time table.
  std::vector<int64_t> last;
  if (!in_shape.empty()) {
    const size_t a = in_shape.size() - 1;
    last.reserve(static_cast<size_t>(p.out[a]));
    for (int64_t o = 0; o < p.out[a]; ++o) last.push_back(source_index(o, p.begin[a], in_shape[a], p.mode));
  }
  const bool from_input = init.opset >= 11;
  return make_kernel([last, p, attr_value, from_input, in_shape](KernelContext& ctx) {
    uint64_t fill = attr_value;
    const TensorRef& in = ctx.inputs[0];
    if (from_input && ctx.inputs.size() > 2 && ctx.inputs[2].present() && ctx.inputs[2].numel() > 0)
      std::memcpy(&fill, ctx.inputs[2].data, dtype_size(in.dtype));
    const int64_t total = numel_range(p.out, 0, p.out.size());
    if (total == 0) return;
    const std::vector<int64_t> strides = strides_of(in_shape);
    const int rank = static_cast<int>(p.out.size());
    dispatch_by_size(in.dtype, "Pad", [&](auto tag) {
      using U = typename decltype(tag)::type;
      U value;
      std::memcpy(&value, &fill, sizeof(U));
      const U* src = in.as<U>();
      U* dst = ctx.outputs[0].as<U>();
      if (rank == 0) {
        *dst = *src;
        return;
      }
      const int64_t n = p.out[rank - 1], rows = total / n;
      parallel_for(rows, std::max<int64_t>(1, 16384 / n), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          int64_t rem = r, off = 0;
          bool constant = false;
          for (int k = rank - 2; k >= 0; --k) {
            const int64_t m = source_index(rem % p.out[k], p.begin[k], in_shape[k], p.mode);
            rem /= p.out[k];
            constant |= m < 0;
            off += m * strides[k];
          }
          U* row = dst + r * n;
          if (constant) {
            std::fill_n(row, n, value);
            continue;
          }
          for (int64_t j = 0; j < n; ++j) row[j] = last[j] < 0 ? value : src[off + last[j]];
        }
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(pad) {
  OpRegistry::get().add(OpDef("", "Pad", infer_pad));
  OpRegistry::get().add_kernel("", "Pad", kernel_set::kCpu, make_pad_cpu);
}

}  // namespace ie
