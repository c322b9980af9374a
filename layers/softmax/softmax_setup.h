// The softmax family's axis handling (opset >= 13: one axis; < 13: 2-D coercion), shared by CPU and CUDA kernels.
#pragma once

#include "engine/registry/op_def.h"

namespace ie {

struct SoftSetup {
  int64_t outer = 1, n = 1, inner = 1;  // normalize over n values spaced `inner` apart
};

inline SoftSetup resolve_soft(const Node& node, const Shape& x, int64_t opset) {
  const int64_t rank = static_cast<int64_t>(x.size());
  const bool legacy = opset < 13;
  if (rank == 0) fail_input(node.label(), ": input must have rank >= 1");
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", legacy ? 1 : -1), rank, node.label());
  SoftSetup s;
  s.outer = numel_range(x, 0, axis);
  if (legacy) {
    s.n = numel_range(x, axis, rank);
  } else {
    s.n = x[axis];
    s.inner = numel_range(x, axis + 1, rank);
  }
  return s;
}

}  // namespace ie
