// Add, Sub, Mul, Div with numpy broadcasting. Integer results wrap like C; integer Div truncates toward zero.
#include <type_traits>

#include "layers/common/binary.h"
#include "layers/common/int_math.h"

namespace ie {

IE_REGISTER_OPS(arith) {
  register_binary<TypeClass::Numeric, false>("Add",
                                             [](const KernelInit&) { return [](auto a, auto b) { return a + b; }; });
  register_binary<TypeClass::Numeric, false>("Sub",
                                             [](const KernelInit&) { return [](auto a, auto b) { return a - b; }; });
  register_binary<TypeClass::Numeric, false>("Mul",
                                             [](const KernelInit&) { return [](auto a, auto b) { return a * b; }; });
  register_binary<TypeClass::Numeric, false>("Div", [](const KernelInit&) {
    return [](auto a, auto b) {
      using C = decltype(a);
      if constexpr (std::is_integral_v<C>) {
        return int_divmod(a, b).first;
      } else {
        return a / b;
      }
    };
  });
}

}  // namespace ie
