// BitShift on unsigned integers; direction "LEFT" or "RIGHT". Shifting by the bit width or more gives 0.
#include "layers/common/binary.h"

namespace ie {
namespace {

bool shift_left(const Attributes& attrs, const std::string& label) {
  std::string dir = attrs.get_string("direction", "");
  if (dir != "LEFT" && dir != "RIGHT")
    fail_input(label, ": attribute direction must be \"LEFT\" or \"RIGHT\", got \"", dir, "\"");
  return dir == "LEFT";
}

template <bool kLeft>
struct Shift {
  template <class C>
  C operator()(C a, C b) const {
    if (b >= C(sizeof(C) * 8)) return C(0);
    return static_cast<C>(kLeft ? a << b : a >> b);
  }
};

}  // namespace

IE_REGISTER_OPS(bitshift) {
  OpRegistry::get().add(OpDef("", "BitShift", [](InferContext& ctx) {
    infer_binary(ctx, TypeClass::Unsigned);
    shift_left(ctx.attrs(), ctx.node().label());
  }));
  OpRegistry::get().add_kernel("", "BitShift", kernel_set::kCpu, [](const KernelInit& init) {
    if (shift_left(init.node.attrs, init.node.label()))
      return make_binary_kernel<TypeClass::Unsigned, false>(init, Shift<true>{});
    return make_binary_kernel<TypeClass::Unsigned, false>(init, Shift<false>{});
  });
}

}  // namespace ie
