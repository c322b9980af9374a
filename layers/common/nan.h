// NaN test for every element type a kernel may see: integers are never NaN, and Eigen's half and bfloat16 compare
// through float. Max-like reductions use it so that a NaN input propagates as in numpy and PyTorch.
#pragma once

namespace ie {

template <class T>
inline bool is_nan(T x) {
  return !(x == x);  // NOLINT(misc-redundant-expression): false only for NaN
}

}  // namespace ie
