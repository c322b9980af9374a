// Constant: the value sits in one of several attributes; inference hands it to the planner as a known output.
#include <algorithm>

#include "engine/registry/op_def.h"
#include "layers/common/known_output_kernel.h"

namespace ie {
namespace {

Tensor constant_value(const InferContext& ctx) {
  const Attributes& a = ctx.attrs();
  for (const char* name : {"sparse_value", "value_string", "value_strings"})
    if (a.has(name)) ctx.fail("attribute '", name, "' is not supported (only dense numeric constants are)");
  if (const Attribute* v = a.find("value")) {
    ctx.expect(v->kind == Attribute::Kind::Tensor && !v->t.empty(), "attribute 'value' must hold a tensor");
    return v->t;
  }
  if (a.has("value_float")) {
    Tensor t(DType::Float32, {});
    *t.data_as<float>() = a.get_float("value_float", 0);
    return t;
  }
  if (a.has("value_int")) {
    Tensor t(DType::Int64, {});
    *t.data_as<int64_t>() = a.get_int("value_int", 0);
    return t;
  }
  if (a.has("value_floats")) {
    std::vector<float> v = a.get_floats("value_floats");
    Tensor t(DType::Float32, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), t.data_as<float>());
    return t;
  }
  if (a.has("value_ints")) {
    std::vector<int64_t> v = a.get_ints("value_ints");
    Tensor t(DType::Int64, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), t.data_as<int64_t>());
    return t;
  }
  ctx.fail("has none of the attributes value, value_float(s), value_int(s)");
}

void infer_constant(InferContext& ctx) { ctx.set_output_constant(0, constant_value(ctx)); }

}  // namespace

IE_REGISTER_OPS(constant) {
  OpRegistry::get().add(OpDef("", "Constant", infer_constant));
  OpRegistry::get().add_kernel("", "Constant", kernel_set::kCpu,
                               [](const KernelInit& i) { return make_known_output_kernel(i, infer_constant); });
}

}  // namespace ie
