// Integer division made total: C's / and % trap on x86 for a zero divisor and for MIN / -1, and a model's data
// must never crash the engine. x / 0 and x % 0 give 0 (numpy's result); MIN / -1 wraps to MIN.
#pragma once

#include <type_traits>
#include <utility>

namespace ie {

/// {a / b truncated toward zero, a % b with a's sign} for an integer type C.
template <class C>
std::pair<C, C> int_divmod(C a, C b) {
  if (b == 0) return {C(0), C(0)};
  if constexpr (std::is_signed_v<C>) {
    using U = std::make_unsigned_t<C>;
    if (b == C(-1)) return {static_cast<C>(U(0) - static_cast<U>(a)), C(0)};
  }
  return {static_cast<C>(a / b), static_cast<C>(a % b)};
}

}  // namespace ie
