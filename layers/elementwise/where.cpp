// Where: out = cond ? x : y with three-way numpy broadcasting; cond is bool, x and y share any type.
#include "layers/common/broadcast.h"

namespace ie {
namespace {

void infer_where(InferContext& ctx) {
  ctx.expect(ctx.has_input(0) && ctx.has_input(1) && ctx.has_input(2), "expects 3 inputs (condition, X, Y)");
  expect_type(ctx, 0, TypeClass::Bool);
  expect_type(ctx, 1, TypeClass::All);
  expect_same_type(ctx, 1, 2);
  Shape out = broadcast_all({ctx.input(0).shape, ctx.input(1).shape, ctx.input(2).shape}, ctx.node().label());
  ctx.set_output(0, ctx.input(1).dtype, out);
}

std::unique_ptr<Kernel> make_where_cpu(const KernelInit& init) {
  BroadcastPlan plan =
      plan_broadcast({init.inputs[0].shape, init.inputs[1].shape, init.inputs[2].shape}, init.outputs[0].shape);
  const std::string where = init.node.label();
  // Only the element size matters for selecting.
  return dispatch_by_size(init.inputs[1].dtype, where.c_str(), [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    return make_kernel([plan](KernelContext& ctx) {
      const bool* c = ctx.inputs[0].as<bool>();
      const T* x = ctx.inputs[1].as<T>();
      const T* y = ctx.inputs[2].as<T>();
      T* out = ctx.outputs[0].as<T>();
      const int64_t sc = plan.inner_moves(0), sx = plan.inner_moves(1), sy = plan.inner_moves(2);
      for_each_run<3>(plan, [&](int64_t o, const std::array<int64_t, 3>& in, int64_t n) {
        const bool* pc = c + in[0];
        const T* px = x + in[1];
        const T* py = y + in[2];
        for (int64_t i = 0; i < n; ++i) out[o + i] = pc[i * sc] ? px[i * sx] : py[i * sy];
      });
    });
  });
}

}  // namespace

IE_REGISTER_OPS(where) {
  OpRegistry::get().add(OpDef("", "Where", infer_where).with_cost(per_element_cost(1)));
  OpRegistry::get().add_kernel("", "Where", kernel_set::kCpu, make_where_cpu);
}

}  // namespace ie
