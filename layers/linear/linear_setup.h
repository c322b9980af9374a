// ie.Linear's attributes and shapes (trans_w, activation, rows/K/N, the optional residual input 3), shared by its
// CPU and CUDA kernels. Y = act(A W + bias) + residual.
#pragma once

#include "engine/registry/op_def.h"
#include "layers/common/activation.h"

namespace ie {

struct LinearSetup {
  bool trans_w = true;
  Activation activation = Activation::None;
  int64_t rows = 0, k = 0, n = 0;
  bool residual = false;  // input 3, of Y's shape, added after the activation
  Shape out;
};

inline LinearSetup resolve_linear(const Node& node, const Shape& a, const Shape& w, const Shape* bias,
                                  const Shape* residual = nullptr) {
  LinearSetup s;
  s.trans_w = node.attrs.get_int("trans_w", 1) != 0;
  s.activation = parse_activation(node.attrs.get_string("activation", ""), node.label());
  if (a.empty()) fail_input(node.label(), ": A must have rank >= 1");
  if (w.size() != 2) fail_input(node.label(), ": W must be a matrix, got ", shape_to_string(w));
  s.k = a.back();
  s.n = s.trans_w ? w[0] : w[1];
  const int64_t wk = s.trans_w ? w[1] : w[0];
  if (wk != s.k)
    fail_input(node.label(), ": A ", shape_to_string(a), " has K = ", s.k, " but W ", shape_to_string(w),
               " (trans_w = ", s.trans_w, ") has K = ", wk);
  if (bias && numel_range(*bias, 0, bias->size()) != s.n)
    fail_input(node.label(), ": bias ", shape_to_string(*bias), " must hold N = ", s.n, " values");
  s.rows = numel_range(a, 0, a.size() - 1);
  s.out = a;
  s.out.back() = s.n;
  s.residual = residual != nullptr;
  if (residual && *residual != s.out)
    fail_input(node.label(), ": residual ", shape_to_string(*residual), " must have Y's shape ",
               shape_to_string(s.out));
  return s;
}

}  // namespace ie
