// LayerNormalization (ONNX 17): normalizes over the dims from `axis` on; Scale and B broadcast to those dims.
// Optional outputs Mean and InvStdDev have shape X.shape[:axis] + [1] * (rank - axis), type stash_type.
// ie.LayerNorm: the planner's fusion of LayerNormalization -> activation (layer_norm_activation): the same
// attributes plus `activation`, output Y only.
#include <type_traits>

#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/activation.h"
#include "layers/common/compute_type.h"
#include "layers/common/norm_stats.h"
#include "layers/layer_norm/layer_norm_setup.h"

namespace ie {

LayerNormSetup resolve_layer_norm(const Node& node, const Shape& x, int64_t* axis_out) {
  const int64_t rank = static_cast<int64_t>(x.size());
  if (rank == 0) fail_input(node.label(), ": X must have rank >= 1");
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", -1), rank, node.label());
  LayerNormSetup s;
  s.rows = numel_range(x, 0, axis);
  s.n = numel_range(x, axis, rank);
  s.epsilon = node.attrs.get_float("epsilon", 1e-5f);
  s.normalized = Shape(x.begin() + axis, x.end());
  s.activation = parse_activation(node.attrs.get_string("activation", ""), node.label());
  if (axis_out) *axis_out = axis;
  return s;
}

namespace {

void infer_layer_norm(InferContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  ctx.expect(is_float(x.dtype), "X must be a float tensor, got ", dtype_name(x.dtype));
  int64_t axis = 0;
  LayerNormSetup s = resolve_layer_norm(ctx.node(), x.shape, &axis);
  ctx.expect(ctx.has_input(1), "input Scale is required");
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.has_input(i)) continue;
    Shape shape = ctx.input(i).shape;
    ctx.expect(broadcast_shapes(shape, s.normalized, ctx.node().label()) == s.normalized, "input ", i, " ",
               shape_to_string(shape), " does not broadcast to the normalized shape ", shape_to_string(s.normalized));
  }
  ctx.set_output(0, x.dtype, x.shape);
  const DType stash = static_cast<DType>(ctx.attrs().get_int("stash_type", 1));
  ctx.expect(is_float(stash), "stash_type must name a float type, got ", static_cast<int>(stash));
  Shape stat(x.shape.begin(), x.shape.begin() + axis);
  stat.resize(x.shape.size(), 1);
  ctx.set_output(1, stash, stat);
  ctx.set_output(2, stash, stat);
}

std::unique_ptr<Kernel> make_layer_norm_cpu(const KernelInit& init) {
  LayerNormSetup s = resolve_layer_norm(init.node, init.inputs[0].shape, nullptr);
  s.scale_shape = init.inputs[1].shape;
  if (init.inputs.size() > 2) s.bias_shape = init.inputs[2].shape;
  const DType t = init.inputs[0].dtype;
  if (!is_float(t)) return nullptr;
  const std::string label = init.node.label();
  return dispatch_float(t, "LayerNormalization", [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    using C = ComputeOf<T>;
    WeightInput<C> scale_in(init, 1), bias_in(init, 2);
    return make_kernel([s, scale_in, bias_in, label](KernelContext& ctx) {
      const Activation act = s.activation;
      ComputeBuffer<C> ss, bs;
      std::vector<C> se, be;
      const C* scale = broadcast_to(scale_in.get(ctx, ss), s.scale_shape, s.normalized, se, label);
      const C* bias =
          bias_in.present() ? broadcast_to(bias_in.get(ctx, bs), s.bias_shape, s.normalized, be, label) : nullptr;
      const T* x = ctx.inputs[0].as<const T>();
      T* y = ctx.outputs[0].as<T>();
      const TensorRef* mean_out = ctx.outputs.size() > 1 && ctx.outputs[1].present() ? &ctx.outputs[1] : nullptr;
      const TensorRef* inv_out = ctx.outputs.size() > 2 && ctx.outputs[2].present() ? &ctx.outputs[2] : nullptr;
      parallel_for(s.rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, s.n)), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const T* xr = x + r * s.n;
          T* yr = y + r * s.n;
          // Statistics in double: this kernel is also the reference the GPU kernels are checked against. In 8
          // partial sums: one serial chain of dependent double adds was a fifth of the SSA's CPU time.
          double mean_d, var_d;
          mean_variance_lanes(xr, s.n, mean_d, var_d);
          const C mean = static_cast<C>(mean_d);
          const C inv = static_cast<C>(1.0 / std::sqrt(var_d + static_cast<double>(s.epsilon)));
          // Normalize into the output row (float) or a row of the compute type, then the activation over the row
          // at once (vectorized: activate_span).
          thread_local std::vector<C> wide;
          C* row = nullptr;
          if constexpr (std::is_same_v<T, C>) {
            row = yr;
          } else {
            wide.resize(s.n);
            row = wide.data();
          }
          // Blocks of 8 read before they write, the bias test outside the loop. With the plain loop two of the
          // SSA's seven LayerNorm steps ran 3x slower than the others (likely its run-time overlap check between
          // x, y, scale and bias choosing the scalar version); in blocks all run at the fast steps' speed.
          constexpr int64_t kBlock = 8;
          int64_t i = 0;
          auto blocks = [&](auto with_bias) {
            for (; i + kBlock <= s.n; i += kBlock) {
              C t[kBlock];
              for (int64_t l = 0; l < kBlock; ++l) {
                t[l] = (static_cast<C>(xr[i + l]) - mean) * inv * scale[i + l];
                if constexpr (decltype(with_bias)::value) t[l] += bias[i + l];
              }
              for (int64_t l = 0; l < kBlock; ++l) row[i + l] = t[l];
            }
          };
          if (bias)
            blocks(std::true_type{});
          else
            blocks(std::false_type{});
          for (; i < s.n; ++i) {
            row[i] = (static_cast<C>(xr[i]) - mean) * inv * scale[i];
            if (bias) row[i] += bias[i];
          }
          activate_span(act, row, s.n);
          if constexpr (!std::is_same_v<T, C>)
            for (int64_t i = 0; i < s.n; ++i) yr[i] = static_cast<T>(row[i]);
          auto store = [r](const TensorRef* out, C v) {
            if (!out) return;
            dispatch_float(out->dtype, "LayerNormalization stats", [&](auto otag) {
              using O = typename decltype(otag)::type;
              out->as<O>()[r] = static_cast<O>(v);
            });
          };
          store(mean_out, mean);
          store(inv_out, inv);
        }
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(layer_norm) {
  // mean, variance (subtract, square, add), normalize (subtract, multiply), scale and shift: about 8 per element.
  OpRegistry::get().add(OpDef("", "LayerNormalization", infer_layer_norm).with_cost(per_element_cost(8)));
  OpRegistry::get().add_kernel("", "LayerNormalization", kernel_set::kCpu, make_layer_norm_cpu);
  // The activation adds a few operations per element (GELU's erf about 20).
  OpRegistry::get().add(OpDef("ie", "LayerNorm", infer_layer_norm).with_cost(per_element_cost(30)));
  OpRegistry::get().add_kernel("ie", "LayerNorm", kernel_set::kCpu, make_layer_norm_cpu);
}

}  // namespace ie
