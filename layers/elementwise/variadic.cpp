// Max, Min, Sum, Mean over one or more inputs with numpy broadcasting. The output is built by folding the
// inputs in pairs into the output buffer: out = op(x0, x1), then out = op(out, xk). Max and Min propagate NaN.
#include <cstring>
#include <type_traits>

#include "layers/common/binary.h"
#include "layers/common/nan.h"

namespace ie {
namespace {

enum class Fold { Max, Min, Sum, Mean };

void infer_variadic(InferContext& ctx, TypeClass cls) {
  ctx.expect(ctx.num_inputs() >= 1, "expects at least one input");
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ctx.expect(ctx.has_input(i), "input ", i, " is missing");
    expect_type(ctx, i, cls);
    expect_same_type(ctx, 0, i);
    shapes.push_back(ctx.input(i).shape);
  }
  ctx.set_output(0, ctx.input(0).dtype, broadcast_all(shapes, ctx.node().label()));
}

template <Fold kFold>
struct FoldOp {
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (kFold == Fold::Max) {
      return (b > a || is_nan(b)) ? b : a;
    } else if constexpr (kFold == Fold::Min) {
      return (b < a || is_nan(b)) ? b : a;
    } else {
      return static_cast<C>(a + b);
    }
  }
};

template <Fold kFold, TypeClass Cls>
std::unique_ptr<Kernel> make_variadic_cpu(const KernelInit& init) {
  const Shape& out_shape = init.outputs[0].shape;
  std::vector<BroadcastPlan> plans;  // plans[k-1] folds input k into the output
  for (size_t k = 1; k < init.inputs.size(); ++k)
    plans.push_back(plan_broadcast({k == 1 ? init.inputs[0].shape : out_shape, init.inputs[k].shape}, out_shape));
  const std::string where = init.node.label();
  return dispatch_class<Cls>(init.inputs[0].dtype, where.c_str(), [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    return make_kernel([plans](KernelContext& ctx) {
      T* out = ctx.outputs[0].as<T>();
      if (plans.empty()) {
        if (out != ctx.inputs[0].data) std::memcpy(out, ctx.inputs[0].data, ctx.outputs[0].nbytes());
      }
      for (size_t k = 0; k < plans.size(); ++k) {
        const T* acc = k == 0 ? ctx.inputs[0].as<T>() : out;
        broadcast_binary(plans[k], acc, ctx.inputs[k + 1].as<T>(), out, FoldOp<kFold>{});
      }
      if constexpr (kFold == Fold::Mean) {
        const compute_t<T> count = static_cast<compute_t<T>>(ctx.inputs.size());
        map_unary(out, out, ctx.outputs[0].numel(), [count](compute_t<T> x) { return x / count; });
      }
    });
  });
}

template <Fold kFold, TypeClass Cls>
void register_variadic(const char* name) {
  OpRegistry::get().add(
      OpDef("", name, [](InferContext& ctx) { infer_variadic(ctx, Cls); }).with_cost(per_element_cost(1)));
  OpRegistry::get().add_kernel("", name, kernel_set::kCpu, make_variadic_cpu<kFold, Cls>);
}

}  // namespace

IE_REGISTER_OPS(variadic) {
  register_variadic<Fold::Max, TypeClass::Numeric>("Max");
  register_variadic<Fold::Min, TypeClass::Numeric>("Min");
  register_variadic<Fold::Sum, TypeClass::Float>("Sum");
  register_variadic<Fold::Mean, TypeClass::Float>("Mean");
}

}  // namespace ie
