// ArgMax and ArgMin: the int64 index of the extreme value along one axis (the first one, or the last one with
// select_last_index).
#include "engine/core/dtype_dispatch.h"
#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/axes.h"

namespace ie {
namespace {

void infer_arg_reduce(InferContext& ctx) {
  const TensorInfo& in = ctx.input(0);
  ctx.expect(is_float(in.dtype) || is_integer(in.dtype), "unsupported element type ", dtype_name(in.dtype));
  ctx.expect(!in.shape.empty(), "input must have rank >= 1");
  const int64_t axis = axis_attr(ctx.node(), in.shape.size());
  ctx.expect(in.shape[axis] > 0, "cannot take the index over the empty axis ", axis, " of ", shape_to_string(in.shape));
  Shape out = in.shape;
  if (ctx.attrs().get_int("keepdims", 1) != 0)
    out[axis] = 1;
  else
    out.erase(out.begin() + axis);
  ctx.set_output(0, DType::Int64, out);
}

template <bool kMax, class T>
void arg_reduce(const T* in, int64_t* out, int64_t outer, int64_t dim, int64_t inner, bool last) {
  parallel_for(outer * inner, std::max<int64_t>(1, 16384 / dim), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const T* p = in + (t / inner) * dim * inner + t % inner;
      int64_t best = 0;
      T v = p[0];
      for (int64_t i = 1; i < dim; ++i) {
        const T x = p[i * inner];
        const bool better = kMax ? (last ? x >= v : x > v) : (last ? x <= v : x < v);
        if (better) {
          v = x;
          best = i;
        }
      }
      out[t] = best;
    }
  });
}

std::unique_ptr<Kernel> make_arg_reduce_cpu(const KernelInit& init) {
  const int64_t axis = axis_attr(init.node, init.inputs[0].shape.size());
  const bool last = init.node.attrs.get_int("select_last_index", 0) != 0;
  const bool is_max = init.node.op_type == "ArgMax";
  return make_kernel([axis, last, is_max](KernelContext& ctx) {
    const TensorRef& in = ctx.inputs[0];
    const int64_t outer = numel_range(in.shape, 0, axis), dim = in.shape[axis];
    const int64_t inner = numel_range(in.shape, axis + 1, in.shape.size());
    dispatch_numeric(in.dtype, "ArgMax/ArgMin", [&](auto tag) {
      using T = typename decltype(tag)::type;
      int64_t* out = ctx.outputs[0].as<int64_t>();
      if (is_max)
        arg_reduce<true>(in.as<T>(), out, outer, dim, inner, last);
      else
        arg_reduce<false>(in.as<T>(), out, outer, dim, inner, last);
    });
  });
}

}  // namespace

IE_REGISTER_OPS(arg_reduce) {
  for (const char* name : {"ArgMax", "ArgMin"}) {
    OpRegistry::get().add(OpDef("", name, infer_arg_reduce));
    OpRegistry::get().add_kernel("", name, kernel_set::kCpu, make_arg_reduce_cpu);
  }
}

}  // namespace ie
