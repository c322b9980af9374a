// And, Or, Xor (broadcasting) and Not, all on bool tensors.
#include "layers/common/binary.h"
#include "layers/common/unary.h"

namespace ie {

IE_REGISTER_OPS(logical) {
  register_binary<TypeClass::Bool, false>("And",
                                          [](const KernelInit&) { return [](bool a, bool b) { return a && b; }; });
  register_binary<TypeClass::Bool, false>("Or",
                                          [](const KernelInit&) { return [](bool a, bool b) { return a || b; }; });
  register_binary<TypeClass::Bool, false>("Xor",
                                          [](const KernelInit&) { return [](bool a, bool b) { return a != b; }; });
  register_unary<TypeClass::Bool>("Not", [](const KernelInit&) { return [](bool a) { return !a; }; });
}

}  // namespace ie
