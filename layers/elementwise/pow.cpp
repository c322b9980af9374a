// Pow: base T (float16/32/64, int32, int64) and exponent T1 (any number type) may differ; the output is T.
// Integer base with integer exponent is exact (square-and-multiply, wrapping); otherwise pow runs in the float
// type of the base (double for integer bases) and converts back. A scalar exponent of 1, 2, 3 or 0.5 on a
// float base (GELU's x^3, variance's x^2) skips pow().
#include <cmath>
#include <type_traits>

#include "layers/common/binary.h"

namespace ie {
namespace {

int64_t int_pow(int64_t base, int64_t exp) {
  if (exp < 0) {  // 1/base^|exp| truncated toward zero
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exp); e; e >>= 1, b *= b)
    if (e & 1) result *= b;
  return static_cast<int64_t>(result);
}

struct PowOp {
  template <class CA, class CB>
  auto operator()(CA a, CB b) const {
    if constexpr (std::is_integral_v<CA> && std::is_integral_v<CB>) {
      return int_pow(static_cast<int64_t>(a), static_cast<int64_t>(b));
    } else if constexpr (std::is_same_v<CA, float>) {
      return std::pow(a, static_cast<float>(b));
    } else {
      return std::pow(static_cast<double>(a), static_cast<double>(b));
    }
  }
};

template <class TA>
std::unique_ptr<Kernel> make_pow_for_base(const KernelInit& init, const BroadcastPlan& plan, bool scalar_exp) {
  const std::string where = init.node.label();
  return dispatch_numeric(init.inputs[1].dtype, where.c_str(), [&](auto tag) -> std::unique_ptr<Kernel> {
    using TB = typename decltype(tag)::type;
    return make_kernel([plan, scalar_exp](KernelContext& ctx) {
      (void)scalar_exp;  // integer bases take the general path only
      const TA* a = ctx.inputs[0].as<TA>();
      const TB* b = ctx.inputs[1].as<TB>();
      TA* out = ctx.outputs[0].as<TA>();
      if constexpr (!std::is_integral_v<TA>) {
        if (scalar_exp) {
          using C = compute_t<TA>;
          const double e = static_cast<double>(compute_t<TB>(b[0]));
          const int64_t n = ctx.outputs[0].numel();
          if (e == 1.0) return map_unary(a, out, n, [](C x) { return x; });
          if (e == 2.0) return map_unary(a, out, n, [](C x) { return x * x; });
          if (e == 3.0) return map_unary(a, out, n, [](C x) { return x * x * x; });
          if (e == 0.5) return map_unary(a, out, n, [](C x) { return std::sqrt(x); });
        }
      }
      broadcast_binary(plan, a, b, out, PowOp{});
    });
  });
}

std::unique_ptr<Kernel> make_pow_cpu(const KernelInit& init) {
  BroadcastPlan plan = plan_broadcast({init.inputs[0].shape, init.inputs[1].shape}, init.outputs[0].shape);
  bool scalar_exp = numel_range(init.inputs[1].shape, 0, init.inputs[1].shape.size()) == 1 &&
                    init.outputs[0].shape == init.inputs[0].shape;
  switch (init.inputs[0].dtype) {
    case DType::Float32:
      return make_pow_for_base<float>(init, plan, scalar_exp);
    case DType::Float64:
      return make_pow_for_base<double>(init, plan, scalar_exp);
    case DType::Float16:
      return make_pow_for_base<half>(init, plan, scalar_exp);
    case DType::BFloat16:
      return make_pow_for_base<bfloat16>(init, plan, scalar_exp);
    case DType::Int32:
      return make_pow_for_base<int32_t>(init, plan, scalar_exp);
    case DType::Int64:
      return make_pow_for_base<int64_t>(init, plan, scalar_exp);
    default:
      init.fail("unsupported base type ", dtype_name(init.inputs[0].dtype));
  }
}

void infer_pow(InferContext& ctx) {
  ctx.expect(ctx.has_input(0) && ctx.has_input(1), "expects 2 inputs (base, exponent)");
  DType t = ctx.input(0).dtype;
  ctx.expect(is_float(t) || t == DType::Int32 || t == DType::Int64, "base has element type ", dtype_name(t),
             "; expected float16, float32, float64, int32 or int64");
  expect_type(ctx, 1, TypeClass::Numeric);
  ctx.set_output(0, t, broadcast_shapes(ctx.input(0).shape, ctx.input(1).shape, ctx.node().label()));
}

}  // namespace

IE_REGISTER_OPS(pow) {
  OpRegistry::get().add(OpDef("", "Pow", infer_pow).with_cost(per_element_cost(1)));
  OpRegistry::get().add_kernel("", "Pow", kernel_set::kCpu, make_pow_cpu);
}

}  // namespace ie
