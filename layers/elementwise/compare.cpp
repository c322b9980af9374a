// Equal, Greater, Less, GreaterOrEqual, LessOrEqual: broadcasting comparisons with a bool output.
#include "layers/common/binary.h"

namespace ie {

IE_REGISTER_OPS(compare) {
  register_binary<TypeClass::All, true>("Equal",
                                        [](const KernelInit&) { return [](auto a, auto b) { return a == b; }; });
  register_binary<TypeClass::Numeric, true>("Greater",
                                            [](const KernelInit&) { return [](auto a, auto b) { return a > b; }; });
  register_binary<TypeClass::Numeric, true>("Less",
                                            [](const KernelInit&) { return [](auto a, auto b) { return a < b; }; });
  register_binary<TypeClass::Numeric, true>("GreaterOrEqual",
                                            [](const KernelInit&) { return [](auto a, auto b) { return a >= b; }; });
  register_binary<TypeClass::Numeric, true>("LessOrEqual",
                                            [](const KernelInit&) { return [](auto a, auto b) { return a <= b; }; });
}

}  // namespace ie
