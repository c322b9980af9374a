// Range: start, start + delta, ... up to (excluding) limit. The length depends on the input values, so they must
// be known at plan time.
#include <cmath>

#include "engine/core/dtype_dispatch.h"
#include "engine/registry/op_def.h"

namespace ie {
namespace {

template <class T>
T scalar_of(const Tensor& t) {
  return *t.data_as<T>();
}

void infer_range(InferContext& ctx) {
  const DType dtype = ctx.input(0).dtype;
  const Tensor* v[3];
  for (size_t i = 0; i < 3; ++i) {
    ctx.expect(ctx.input(i).dtype == dtype, "start, limit and delta must share one type");
    ctx.expect(numel_range(ctx.input(i).shape, 0, ctx.input(i).shape.size()) == 1, "input ", i, " must be a scalar");
    v[i] = &ctx.require_constant(i, "start, limit and delta (the output length depends on them)");
  }
  int64_t n = dispatch_numeric(dtype, "Range", [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    const double start = static_cast<double>(scalar_of<T>(*v[0])), limit = static_cast<double>(scalar_of<T>(*v[1]));
    const double delta = static_cast<double>(scalar_of<T>(*v[2]));
    ctx.expect(delta != 0, "delta is 0");
    if constexpr (std::is_integral_v<T>) {
      // The distance in unsigned arithmetic: limit - start may not fit in int64 (e.g. INT64_MIN to INT64_MAX).
      const int64_t s = static_cast<int64_t>(scalar_of<T>(*v[0])), l = static_cast<int64_t>(scalar_of<T>(*v[1]));
      const int64_t d = static_cast<int64_t>(scalar_of<T>(*v[2]));
      const bool up = d > 0;
      if (up ? l <= s : s <= l) return 0;
      const uint64_t dist = up ? uint64_t(l) - uint64_t(s) : uint64_t(s) - uint64_t(l);
      const uint64_t step = up ? uint64_t(d) : uint64_t(0) - uint64_t(d);
      const uint64_t n = (dist - 1) / step + 1;
      ctx.expect(n <= uint64_t(INT64_MAX), "the output length ", n, " does not fit in 64 bits");
      return static_cast<int64_t>(n);
    }
    const double n = std::ceil((limit - start) / delta);
    // A NaN or infinite length (or one past 2^62) cannot be a tensor's size; casting it to int64 would be undefined.
    ctx.expect(std::isfinite(n) && n < 4.6e18, "start ", start, ", limit ", limit, " and delta ", delta,
               " give no finite output length");
    return std::max<int64_t>(0, static_cast<int64_t>(n));
  });
  ctx.set_output(0, dtype, {n});
}

std::unique_ptr<Kernel> make_range_cpu(const KernelInit& init) {
  return make_kernel([](KernelContext& ctx) {
    dispatch_numeric(ctx.outputs[0].dtype, "Range", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T start = *ctx.inputs[0].as<T>(), delta = *ctx.inputs[2].as<T>();
      T* out = ctx.outputs[0].as<T>();
      for (int64_t i = 0, n = ctx.outputs[0].numel(); i < n; ++i)
        out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
    });
  });
}

}  // namespace

IE_REGISTER_OPS(range) {
  OpRegistry::get().add(OpDef("", "Range", infer_range));
  OpRegistry::get().add_kernel("", "Range", kernel_set::kCpu, make_range_cpu);
}

}  // namespace ie
