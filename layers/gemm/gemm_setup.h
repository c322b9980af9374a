// Gemm's attributes and shapes (transA/transB, alpha/beta, C's broadcast), shared by its CPU and CUDA kernels.
#pragma once

#include "engine/registry/op_def.h"

namespace ie {

struct GemmSetup {
  bool trans_a = false, trans_b = false;
  float alpha = 1, beta = 1;
  int64_t m = 0, n = 0, k = 0;
  int64_t c_rows = 0, c_cols = 0;  // C's extent once viewed as 2-D (1 where it broadcasts)
};

inline GemmSetup resolve_gemm(const Node& node, const Shape& a, const Shape& b, const Shape* c) {
  GemmSetup s;
  s.trans_a = node.attrs.get_int("transA", 0) != 0;
  s.trans_b = node.attrs.get_int("transB", 0) != 0;
  s.alpha = node.attrs.get_float("alpha", 1.0f);
  s.beta = node.attrs.get_float("beta", 1.0f);
  if (a.size() != 2 || b.size() != 2)
    fail_input(node.label(), ": A and B must be matrices, got ", shape_to_string(a), " and ", shape_to_string(b));
  s.m = s.trans_a ? a[1] : a[0];
  s.k = s.trans_a ? a[0] : a[1];
  const int64_t kb = s.trans_b ? b[1] : b[0];
  s.n = s.trans_b ? b[0] : b[1];
  if (kb != s.k)
    fail_input(node.label(), ": inner dims differ: op(A) is [", s.m, ", ", s.k, "], op(B) is [", kb, ", ", s.n, "]");
  if (c) {
    if (c->size() > 2) fail_input(node.label(), ": C must have rank <= 2, got ", shape_to_string(*c));
    s.c_rows = c->size() == 2 ? (*c)[0] : 1;
    s.c_cols = c->empty() ? 1 : c->back();
    if ((s.c_rows != 1 && s.c_rows != s.m) || (s.c_cols != 1 && s.c_cols != s.n))
      fail_input(node.label(), ": C ", shape_to_string(*c), " does not broadcast to [", s.m, ", ", s.n, "]");
  }
  return s;
}

}  // namespace ie
