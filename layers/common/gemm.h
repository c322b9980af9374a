// Row-major matrix product on raw pointers through Eigen: C = alpha * op(A) op(B) + beta * C.
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "engine/registry/op_def.h"

namespace ie {

/// Cost of MatMul and ie.Linear: every element of Y is a dot product over A's last dim, so 2 * M * N * K * batch.
inline OpCost dot_product_cost(const Node&, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
  return OpCost{2.0 * static_cast<double>(in[0].shape.back()) * output_elements(out), io_bytes(in, out)};
}

/// A is [m, k] (or [k, m] stored when trans_a), B is [k, n] (or [n, k] when trans_b); ld* are row strides.
/// beta == 0 overwrites C without reading it. Small products skip Eigen's packing (lazyProduct).
template <class T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
          const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  using Stride = Eigen::OuterStride<>;
  using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using ColMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
  Eigen::Map<RowMat, 0, Stride> cm(c, m, n, Stride(ldc));
  if (k == 0) {
    if (beta == T(0)) cm.setZero();
    else cm *= beta;
    return;
  }
  const bool small = m * n * k <= 24 * 24 * 24;
  auto run = [&](const auto& am, const auto& bm) {
    if (beta == T(0)) {
      if (small) cm.noalias() = am.lazyProduct(bm);
      else cm.noalias() = am * bm;
      if (alpha != T(1)) cm *= alpha;
      return;
    }
    if (beta != T(1)) cm *= beta;
    if (small) cm.noalias() += alpha * am.lazyProduct(bm);
    else cm.noalias() += alpha * am * bm;
  };
  auto with_b = [&](const auto& am) {
    if (trans_b) run(am, Eigen::Map<const ColMat, 0, Stride>(b, k, n, Stride(ldb)));
    else run(am, Eigen::Map<const RowMat, 0, Stride>(b, k, n, Stride(ldb)));
  };
  if (trans_a) with_b(Eigen::Map<const ColMat, 0, Stride>(a, m, k, Stride(lda)));
  else with_b(Eigen::Map<const RowMat, 0, Stride>(a, m, k, Stride(lda)));
}

}  // namespace ie
