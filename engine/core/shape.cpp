#include "engine/core/shape.h"

#include <limits>

#include "engine/core/error.h"

namespace ie {

int64_t checked_numel(const Shape& shape, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) fail_input(what, ": negative dimension in shape ", shape_to_string(shape));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      fail_input(what, ": element count of shape ", shape_to_string(shape), " overflows 64 bits");
    n *= d;
  }
  return n;
}

int64_t numel_range(const Shape& shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i) n *= shape[i];
  return n;
}

std::vector<int64_t> strides_of(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      fail_input(what, ": shapes ", shape_to_string(a), " and ", shape_to_string(b), " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) fail_input(what, ": axis ", axis, " is out of range for rank ", rank);
  return a;
}

}  // namespace ie
