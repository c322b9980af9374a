// Row-major matrix product on raw pointers through Eigen: C = alpha * op(A) op(B) + beta * C.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>

#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"

namespace ie {

/// Cost of MatMul and ie.Linear: every element of Y is a dot product over A's last dim, so 2 * M * N * K * batch.
inline OpCost dot_product_cost(const Node&, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
  return OpCost{2.0 * static_cast<double>(in[0].shape.back()) * output_elements(out), io_bytes(in, out)};
}

/// A is [m, k] (or [k, m] stored when trans_a), B is [k, n] (or [n, k] when trans_b); ld* are row strides.
/// beta == 0 overwrites C without reading it. Small products skip Eigen's packing (lazyProduct). One thread: see
/// gemm() for the parallel one.
template <class T>
void gemm_serial(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
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

namespace ie {

/// Calls fn(r0, r1) over blocks of a product's m output rows on the current thread pool, one block per thread
/// (rows rounded to 8: whole vector registers in Eigen's row kernels), or once over all rows when the product is too
/// small for threads. Each block runs its own single-threaded Eigen product (which packs its own copy of B: little
/// beside the product while blocks keep at least 32 rows), and the caller's epilogue on the rows it just wrote.
template <class Fn>
void for_gemm_row_blocks(int64_t m, int64_t n, int64_t k, Fn&& fn) {
  constexpr int64_t kMinRows = 32, kMinFlops = int64_t(1) << 18;
  const int64_t threads = m * n * k < kMinFlops ? 1 : std::min<int64_t>(cpu_threads(), m / kMinRows);
  if (threads <= 1) {
    fn(int64_t(0), m);
    return;
  }
  const int64_t rows = ((m + threads - 1) / threads + 7) / 8 * 8;
  parallel_for(m, rows, fn);
}

/// gemm_serial over blocks of C's rows (for_gemm_row_blocks).
template <class T>
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
          const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  for_gemm_row_blocks(m, n, k, [&](int64_t r0, int64_t r1) {
    const T* a_rows = trans_a ? a + r0 : a + r0 * lda;  // trans_a: A is stored [k, m], its row r0 is column r0
    gemm_serial(trans_a, trans_b, r1 - r0, n, k, alpha, a_rows, lda, b, ldb, beta, c + r0 * ldc, ldc);
  });
}

}  // namespace ie
