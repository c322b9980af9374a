// ConstantOfShape: a tensor of the shape given by input 0, filled with the one-element 'value' (float 0 by default).
#include <cstring>

#include "engine/core/dtype_dispatch.h"
#include "engine/registry/op_def.h"

namespace ie {
namespace {

Tensor fill_value(const Node& node) {
  const Attribute* v = node.attrs.find("value");
  if (!v) return Tensor(DType::Float32, {1});
  if (v->kind != Attribute::Kind::Tensor || v->t.numel() != 1)
    fail_input(node.label(), ": attribute 'value' must be a tensor of one element");
  return v->t;
}

void infer_constant_of_shape(InferContext& ctx) {
  Shape shape = ctx.constant_ints(0, "the output shape");
  for (int64_t d : shape) ctx.expect(d >= 0, "the output shape ", shape_to_string(shape), " has a negative dim");
  ctx.set_output(0, fill_value(ctx.node()).dtype(), shape);
}

std::unique_ptr<Kernel> make_constant_of_shape_cpu(const KernelInit& init) {
  Tensor value = fill_value(init.node);
  return make_kernel([value](KernelContext& ctx) {
    const TensorRef& out = ctx.outputs[0];
    dispatch_by_size(out.dtype, "ConstantOfShape", [&](auto tag) {
      using U = typename decltype(tag)::type;
      U v;
      std::memcpy(&v, value.data(), sizeof(U));
      std::fill_n(out.as<U>(), out.numel(), v);
    });
  });
}

}  // namespace

IE_REGISTER_OPS(constant_of_shape) {
  OpRegistry::get().add(OpDef("", "ConstantOfShape", infer_constant_of_shape));
  OpRegistry::get().add_kernel("", "ConstantOfShape", kernel_set::kCpu, make_constant_of_shape_cpu);
}

}  // namespace ie
