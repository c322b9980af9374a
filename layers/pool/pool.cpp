// MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool (ONNX) over 1 to 3 spatial dims.
// MaxPool supports its optional Indices output (int64) and any numeric element type; the averages need floats.
#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/pool_core.h"
#include "layers/pool/pool_setup.h"

namespace ie {
namespace {

template <PoolKind kKind>
void infer_pool(InferContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (kKind == PoolKind::Average || kKind == PoolKind::GlobalAverage)
    ctx.expect(is_float(x.dtype), "X must be a float tensor, got ", dtype_name(x.dtype));
  PoolSetup s = resolve_pool(ctx.node(), kKind, x);
  Shape out{s.batch, s.channels};
  Shape sp = s.window.out_shape();
  out.insert(out.end(), sp.begin(), sp.end());
  ctx.set_output(0, x.dtype, out);
  if (ctx.node().outputs.size() > 1 && !ctx.node().outputs[1].empty()) {
    ctx.expect(kKind == PoolKind::Max, "only MaxPool has a second output");
    ctx.set_output(1, DType::Int64, out);
  }
}

template <PoolKind kKind>
std::unique_ptr<Kernel> make_pool_cpu(const KernelInit& init) {
  PoolSetup s = resolve_pool(init.node, kKind, init.inputs[0]);
  const DType t = init.inputs[0].dtype;
  const bool is_max = kKind == PoolKind::Max || kKind == PoolKind::GlobalMax;
  if (!is_max && !is_float(t)) return nullptr;
  return dispatch_numeric(t, init.node.label().c_str(), [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    return make_kernel([s, is_max](KernelContext& ctx) {
      const T* x = ctx.inputs[0].as<const T>();
      T* y = ctx.outputs[0].as<T>();
      const bool want_indices = ctx.outputs.size() > 1 && ctx.outputs[1].present();
      int64_t* idx = want_indices ? ctx.outputs[1].as<int64_t>() : nullptr;
      const int64_t in_image = s.channels * s.window.in_volume(), out_image = s.channels * s.window.out_volume();
      parallel_for(s.batch * s.channels, 4, [&](int64_t b, int64_t e) {
        // One plane (image, channel) at a time keeps the indices' base offsets simple.
        for (int64_t p = b; p < e; ++p) {
          const int64_t n = p / s.channels, c = p % s.channels;
          const T* xi = x + n * in_image + c * s.window.in_volume();
          T* yi = y + n * out_image + c * s.window.out_volume();
          if (is_max) {
            max_pool(xi, 1, s.window, yi, idx ? idx + p * s.window.out_volume() : nullptr,
                     p * s.window.in_volume(), s.col_major);
          } else if constexpr (std::is_floating_point_v<T> || is_half_like_v<T>) {
            average_pool(xi, 1, s.window, yi, s.count_include_pad);
          }
        }
      });
    });
  });
}

// One compare or add per window tap: output elements times the kernel's volume (in double: a model's kernel_shape
// may multiply past 64 bits). The planner's per-op limit reads it, so an absurd kernel fails at plan time.
template <PoolKind kKind>
OpCost pool_cost(const Node& node, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
  const Window& w = resolve_pool(node, kKind, in[0]).window;
  const double taps =
      static_cast<double>(w.kernel[0]) * static_cast<double>(w.kernel[1]) * static_cast<double>(w.kernel[2]);
  return OpCost{output_elements(out) * taps, io_bytes(in, out)};
}

}  // namespace

IE_REGISTER_OPS(pool) {
  auto& r = OpRegistry::get();
  r.add(OpDef("", "MaxPool", infer_pool<PoolKind::Max>).with_cost(pool_cost<PoolKind::Max>));
  r.add(OpDef("", "AveragePool", infer_pool<PoolKind::Average>).with_cost(pool_cost<PoolKind::Average>));
  r.add(OpDef("", "GlobalMaxPool", infer_pool<PoolKind::GlobalMax>).with_cost(pool_cost<PoolKind::GlobalMax>));
  r.add(OpDef("", "GlobalAveragePool", infer_pool<PoolKind::GlobalAverage>)
            .with_cost(pool_cost<PoolKind::GlobalAverage>));
  r.add_kernel("", "MaxPool", kernel_set::kCpu, make_pool_cpu<PoolKind::Max>);
  r.add_kernel("", "AveragePool", kernel_set::kCpu, make_pool_cpu<PoolKind::Average>);
  r.add_kernel("", "GlobalMaxPool", kernel_set::kCpu, make_pool_cpu<PoolKind::GlobalMax>);
  r.add_kernel("", "GlobalAveragePool", kernel_set::kCpu, make_pool_cpu<PoolKind::GlobalAverage>);
}

}  // namespace ie
