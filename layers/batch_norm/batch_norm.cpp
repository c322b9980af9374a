// BatchNormalization (ONNX): inference with the running statistics, or training mode (opset >= 14
// training_mode = 1, or extra outputs requested before opset 14) with the batch's own statistics, which also
// outputs the updated running mean and variance (running * momentum + batch * (1 - momentum)).
#include <cmath>

#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/compute_type.h"
#include "layers/common/norm_stats.h"

namespace ie {
namespace {

bool wants_output(const Node& node, size_t i) { return i < node.outputs.size() && !node.outputs[i].empty(); }

bool is_training(const Node& node, int64_t opset) {
  if (opset >= 14) return node.attrs.get_int("training_mode", 0) != 0;
  return wants_output(node, 1) || wants_output(node, 2);
}

void infer_batch_norm(InferContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  ctx.expect(is_float(x.dtype), "X must be a float tensor, got ", dtype_name(x.dtype));
  ctx.expect(x.shape.size() >= 2, "X must be [N, C, ...], got ", shape_to_string(x.shape));
  const int64_t c = x.shape[1];
  static const char* kNames[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i < 5; ++i) {
    const TensorInfo& p = ctx.input(i);
    ctx.expect(is_float(p.dtype), kNames[i], " must be a float tensor, got ", dtype_name(p.dtype));
    ctx.expect(p.shape == Shape{c}, kNames[i], " must be [", c, "], got ", shape_to_string(p.shape));
  }
  ctx.set_output(0, x.dtype, x.shape);
  if (is_training(ctx.node(), ctx.opset())) {
    for (size_t i = 1; i < 5; ++i) ctx.set_output(i, ctx.input(3).dtype, {c});
  } else {
    ctx.expect(!wants_output(ctx.node(), 1), "outputs beyond Y need training_mode = 1");
  }
}

std::unique_ptr<Kernel> make_batch_norm_cpu(const KernelInit& init) {
  const DType t = init.inputs[0].dtype;
  if (!is_float(t)) return nullptr;
  const Shape& xs = init.inputs[0].shape;
  const int64_t n = xs[0], c = xs[1], spatial = numel_range(xs, 2, xs.size());
  const float eps = init.node.attrs.get_float("epsilon", 1e-5f);
  const float momentum = init.node.attrs.get_float("momentum", 0.9f);
  const bool training = is_training(init.node, init.opset);
  return dispatch_float(t, "BatchNormalization", [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    using C = ComputeOf<T>;
    WeightInput<C> scale_in(init, 1), bias_in(init, 2), mean_in(init, 3), var_in(init, 4);
    return make_kernel([=](KernelContext& ctx) {
      ComputeBuffer<C> s1, s2, s3, s4;
      const C* scale = scale_in.get(ctx, s1);
      const C* bias = bias_in.get(ctx, s2);
      const C* mean = mean_in.get(ctx, s3);
      const C* var = var_in.get(ctx, s4);
      const T* x = ctx.inputs[0].as<const T>();
      T* y = ctx.outputs[0].as<T>();
      std::vector<C> batch_mean(c), batch_var(c);
      if (training) {
        // Per-channel statistics over batch and spatial dims: gather each channel's planes.
        parallel_for(c, 1, [&](int64_t b, int64_t e) {
          std::vector<C> plane(static_cast<size_t>(n * spatial));
          for (int64_t ch = b; ch < e; ++ch) {
            for (int64_t i = 0; i < n; ++i)
              for (int64_t p = 0; p < spatial; ++p)
                plane[i * spatial + p] = static_cast<C>(x[(i * c + ch) * spatial + p]);
            mean_variance(plane.data(), n * spatial, 1, batch_mean[ch], batch_var[ch]);
          }
        });
        mean = batch_mean.data();
        var = batch_var.data();
      }
      parallel_for(n * c, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, spatial)), [&](int64_t b, int64_t e) {
        for (int64_t plane = b; plane < e; ++plane) {
          const int64_t ch = plane % c;
          const C a = scale[ch] / std::sqrt(var[ch] + C(eps));
          const C shift = bias[ch] - mean[ch] * a;
          const T* xp = x + plane * spatial;
          T* yp = y + plane * spatial;
          for (int64_t p = 0; p < spatial; ++p) yp[p] = static_cast<T>(static_cast<C>(xp[p]) * a + shift);
        }
      });
      if (!training) return;
      ComputeBuffer<C> r1, r2;
      const C* run_mean = mean_in.get(ctx, r1);
      const C* run_var = var_in.get(ctx, r2);
      for (size_t o = 1; o < ctx.outputs.size() && o < 5; ++o) {
        if (!ctx.outputs[o].present()) continue;
        dispatch_float(ctx.outputs[o].dtype, "BatchNormalization", [&](auto otag) {
          using O = typename decltype(otag)::type;
          O* dst = ctx.outputs[o].as<O>();
          for (int64_t ch = 0; ch < c; ++ch) {
            C v = o == 1   ? run_mean[ch] * C(momentum) + batch_mean[ch] * C(1 - momentum)
                  : o == 2 ? run_var[ch] * C(momentum) + batch_var[ch] * C(1 - momentum)
                  : o == 3 ? batch_mean[ch]
                           : batch_var[ch];
            dst[ch] = static_cast<O>(v);
          }
        });
      }
    });
  });
}

}  // namespace

IE_REGISTER_OPS(batch_norm) {
  OpRegistry::get().add(OpDef("", "BatchNormalization", infer_batch_norm));
  OpRegistry::get().add_kernel("", "BatchNormalization", kernel_set::kCpu, make_batch_norm_cpu);
}

}  // namespace ie
