#include "engine/core/checked_math.h"

#include "engine/core/error.h"
#include "engine/core/shape.h"

namespace ie {

int64_t checked_mul(int64_t a, int64_t b, const std::string& what) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) fail_input(what, ": ", a, " * ", b, " overflows 64 bits");
  return r;
}

int64_t checked_add(int64_t a, int64_t b, const std::string& what) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) fail_input(what, ": ", a, " + ", b, " overflows 64 bits");
  return r;
}

size_t checked_bytes(const std::vector<int64_t>& shape, DType dtype, const std::string& what) {
  const int64_t n = checked_numel(shape, what);
  int64_t bytes = 0;
  if (__builtin_mul_overflow(n, static_cast<int64_t>(dtype_size(dtype)), &bytes))
    fail_input(what, ": byte count of ", dtype_name(dtype), shape_to_string(shape), " overflows 64 bits");
  return static_cast<size_t>(bytes);
}

}  // namespace ie
