// Registration of elementwise unary ops (Relu, Exp, LeakyRelu ...): one call gives an op its shape inference
// and its CPU kernel from a generic lambda over compute_t values.
//
//   register_unary<TypeClass::Float>("Elu", [](const KernelInit& init) {
//     float alpha = init.node.attrs.get_float("alpha", 1.0f);
//     return [alpha](auto x) { using C = decltype(x); return x < C(0) ? C(alpha) * (std::exp(x) - C(1)) : x; };
//   });
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "layers/common/elementwise.h"

namespace ie {

/// Inference of a unary op: one input of class `cls`; the output has its shape and type (or `out_dtype`).
void infer_unary(InferContext& ctx, TypeClass cls, DType out_dtype = DType::Undefined);

/// Registers op `name` (default domain) whose output is op(x) in the input's type, or bool when kBoolOut.
template <TypeClass Cls, bool kBoolOut = false, class MakeOp>
void register_unary(const char* name, MakeOp make_op) {
  OpRegistry::get().add(
      OpDef("", name, [](InferContext& ctx) { infer_unary(ctx, Cls, kBoolOut ? DType::Bool : DType::Undefined); })
          .with_cost(per_element_cost(1)));
  OpRegistry::get().add_kernel("", name, kernel_set::kCpu, [make_op](const KernelInit& init) {
    auto op = make_op(init);
    const std::string where = init.node.label();
    return dispatch_class<Cls>(init.inputs[0].dtype, where.c_str(), [&](auto tag) -> std::unique_ptr<Kernel> {
      using T = typename decltype(tag)::type;
      using TO = std::conditional_t<kBoolOut, bool, T>;
      return make_kernel([op](KernelContext& ctx) {
        map_unary(ctx.inputs[0].as<T>(), ctx.outputs[0].as<TO>(), ctx.inputs[0].numel(), op);
      });
    });
  });
}

}  // namespace ie
