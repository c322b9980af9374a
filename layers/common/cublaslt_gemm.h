// One row-major float32 matrix product D[M,N] = alpha op(A) op(B) + beta C (+ bias[N]) (then Relu) through
// cuBLASLt, with its descriptors and algorithm fixed at plan time. Shared by Gemm and ie.Linear on
// "cuda-reference". Only CUDA sources include this header.
//
//   LtGemm g(state.cublaslt(), {m, n, k, trans_a, trans_b}, LtEpilogue::Bias, state.tf32(), node.label());
//   kernel->workspace_bytes() = g.workspace_bytes();   run(): g.run(a, b, nullptr, d, bias, 1, 0, ws, stream);
#pragma once

#include <cstdint>
#include <string>

#include "engine/backend/cuda/cuda_check.h"

namespace ie::cuda {

enum class LtEpilogue { None, Bias, Relu, ReluBias };

/// A row-major problem: A is [M,K] ([K,M] when trans_a), B is [K,N] ([N,K] when trans_b), D and C are [M,N].
struct LtShape {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
};

class LtGemm {
 public:
  /// Builds the descriptors and asks cuBLASLt's heuristic for the best algorithm (one for 16-byte aligned
  /// pointers, one for any float alignment). C, when given to run(), shares D's layout. Fails naming `where`.
  LtGemm(cublasLtHandle_t handle, const LtShape& shape, LtEpilogue epilogue, bool tf32, const std::string& where);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  size_t workspace_bytes() const { return m_workspace; }
  /// Enqueues the product on `stream`. c may equal d (in place); bias is [N] when the epilogue has one.
  void run(const float* a, const float* b, const float* c, float* d, const float* bias, float alpha, float beta,
           void* workspace, void* stream) const;

 private:
  cublasLtHandle_t m_handle = nullptr;
  cublasLtMatmulDesc_t m_op = nullptr;
  cublasLtMatrixLayout_t m_a = nullptr, m_b = nullptr, m_d = nullptr;
  cublasLtMatmulAlgo_t m_algo_aligned{}, m_algo_any{};
  bool m_has_bias = false;
  size_t m_workspace = 0;
};

}  // namespace ie::cuda
