#include "layers/common/axes.h"

#include <algorithm>

#include "engine/core/error.h"

namespace ie {

std::vector<int64_t> normalize_axes(const std::vector<int64_t>& axes, int64_t rank, const std::string& what) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) out.push_back(normalize_axis(a, rank, what));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    fail_input(what, ": axes ", shape_to_string(axes), " name the same axis twice");
  return out;
}

int64_t axis_attr(const Node& node, size_t rank, int64_t fallback, const char* name) {
  return normalize_axis(node.attrs.get_int(name, fallback), static_cast<int64_t>(rank), node.label());
}

}  // namespace ie
