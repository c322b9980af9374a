// Registration of broadcasting binary ops (Add, Less, And ...): one call gives an op its shape inference and
// its CPU kernel from a generic lambda over compute_t values.
//
//   register_binary<TypeClass::Numeric, false>("Add", [](const KernelInit&) {
//     return [](auto a, auto b) { return a + b; };
//   });
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "layers/common/broadcast.h"
#include "layers/common/elementwise.h"

namespace ie {

/// Inference of a broadcasting binary op: both inputs of class `cls` and the same type; the output has the
/// broadcast shape and the input's type, or `out_dtype` when given.
void infer_binary(InferContext& ctx, TypeClass cls, DType out_dtype = DType::Undefined);

/// CPU kernel for out = op(a, b) over inputs of one type T from class Cls; the output is T, or bool if kBoolOut.
template <TypeClass Cls, bool kBoolOut, class Op>
std::unique_ptr<Kernel> make_binary_kernel(const KernelInit& init, Op op) {
  BroadcastPlan plan = plan_broadcast({init.inputs[0].shape, init.inputs[1].shape}, init.outputs[0].shape);
  const std::string where = init.node.label();
  return dispatch_class<Cls>(init.inputs[0].dtype, where.c_str(), [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    using TO = std::conditional_t<kBoolOut, bool, T>;
    return make_kernel([plan, op](KernelContext& ctx) {
      broadcast_binary(plan, ctx.inputs[0].as<T>(), ctx.inputs[1].as<T>(), ctx.outputs[0].as<TO>(), op);
    });
  });
}

/// Registers op `name` (default domain): make_op(const KernelInit&) parses attributes and returns the op.
template <TypeClass Cls, bool kBoolOut, class MakeOp>
void register_binary(const char* name, MakeOp make_op) {
  OpRegistry::get().add(
      OpDef("", name, [](InferContext& ctx) { infer_binary(ctx, Cls, kBoolOut ? DType::Bool : DType::Undefined); })
          .with_cost(per_element_cost(1)));
  OpRegistry::get().add_kernel("", name, kernel_set::kCpu, [make_op](const KernelInit& init) {
    return make_binary_kernel<Cls, kBoolOut>(init, make_op(init));
  });
}

}  // namespace ie
