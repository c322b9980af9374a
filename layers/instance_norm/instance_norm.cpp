// InstanceNormalization (ONNX): each (image, channel) plane normalized over its spatial values, then scale and B.
#include <cmath>

#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/compute_type.h"
#include "layers/common/norm_stats.h"

namespace ie {
namespace {

void infer_instance_norm(InferContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  ctx.expect(is_float(x.dtype), "X must be a float tensor, got ", dtype_name(x.dtype));
  ctx.expect(x.shape.size() >= 3, "X must be [N, C, spatial...], got ", shape_to_string(x.shape));
  for (size_t i = 1; i < 3; ++i)
    ctx.expect(ctx.input(i).shape == Shape{x.shape[1]}, "input ", i, " must be [", x.shape[1], "], got ",
               shape_to_string(ctx.input(i).shape));
  ctx.set_output(0, x.dtype, x.shape);
}

std::unique_ptr<Kernel> make_instance_norm_cpu(const KernelInit& init) {
  const DType t = init.inputs[0].dtype;
  if (!is_float(t)) return nullptr;
  const Shape& xs = init.inputs[0].shape;
  const int64_t planes = xs[0] * xs[1], c = xs[1], spatial = numel_range(xs, 2, xs.size());
  const float eps = init.node.attrs.get_float("epsilon", 1e-5f);
  return dispatch_float(t, "InstanceNormalization", [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    using C = ComputeOf<T>;
    WeightInput<C> scale_in(init, 1), bias_in(init, 2);
    return make_kernel([=](KernelContext& ctx) {
      ComputeBuffer<C> s1, s2;
      const C* scale = scale_in.get(ctx, s1);
      const C* bias = bias_in.get(ctx, s2);
      const T* x = ctx.inputs[0].as<const T>();
      T* y = ctx.outputs[0].as<T>();
      parallel_for(planes, 1, [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) {
          C mean, var;
          mean_variance(x + p * spatial, spatial, 1, mean, var);
          const C a = scale[p % c] / std::sqrt(var + C(eps));
          const C shift = bias[p % c] - mean * a;
          for (int64_t i = 0; i < spatial; ++i)
            y[p * spatial + i] = static_cast<T>(static_cast<C>(x[p * spatial + i]) * a + shift);
        }
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(instance_norm) {
  OpRegistry::get().add(OpDef("", "InstanceNormalization", infer_instance_norm));
  OpRegistry::get().add_kernel("", "InstanceNormalization", kernel_set::kCpu, make_instance_norm_cpu);
}

}  // namespace ie
