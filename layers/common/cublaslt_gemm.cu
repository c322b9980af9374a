// cuBLASLt is column-major; a row-major D[M,N] is a column-major D^T[N,M] = op(B)^T op(A)^T, so cuBLASLt's
// first operand is our B and its second our A, each described by its row-major storage read as column-major
// (which is its transpose). The bias then runs along cuBLASLt's rows, i.e. our N, as Gemm/Linear need.
// The algorithm comes from cublasLtMatmulAlgoGetHeuristic once, here at plan time.
#include <algorithm>

#include "engine/core/error.h"
#include "layers/common/cublaslt_gemm.h"

namespace ie::cuda {
namespace {

constexpr size_t kMaxWorkspace = size_t(32) << 20;

cublasLtMatrixLayout_t layout(int64_t rows, int64_t cols, int64_t ld) {
  cublasLtMatrixLayout_t l = nullptr;
  IE_CUDA_CHECK(blaslt_api().cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, static_cast<uint64_t>(rows),
                                                        static_cast<uint64_t>(cols), ld));
  return l;
}

}  // namespace

LtGemm::LtGemm(cublasLtHandle_t handle, const LtShape& s, LtEpilogue epilogue, bool tf32, const std::string& where)
    : m_handle(handle), m_has_bias(epilogue == LtEpilogue::Bias || epilogue == LtEpilogue::ReluBias) {
  IE_CUDA_CHECK(blaslt_api().cublasLtMatmulDescCreate(&m_op, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                                                      CUDA_R_32F));
  const cublasOperation_t op_first = s.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = s.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  IE_CUDA_CHECK(
      blaslt_api().cublasLtMatmulDescSetAttribute(m_op, CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof(op_first)));
  IE_CUDA_CHECK(
      blaslt_api().cublasLtMatmulDescSetAttribute(m_op, CUBLASLT_MATMUL_DESC_TRANSB, &op_second, sizeof(op_second)));
  cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_DEFAULT;
  if (epilogue == LtEpilogue::Bias) epi = CUBLASLT_EPILOGUE_BIAS;
  if (epilogue == LtEpilogue::Relu) epi = CUBLASLT_EPILOGUE_RELU;
  if (epilogue == LtEpilogue::ReluBias) epi = CUBLASLT_EPILOGUE_RELU_BIAS;
  IE_CUDA_CHECK(blaslt_api().cublasLtMatmulDescSetAttribute(m_op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
  if (m_has_bias) {
    const cudaDataType_t bias_type = CUDA_R_32F;
    IE_CUDA_CHECK(blaslt_api().cublasLtMatmulDescSetAttribute(m_op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type,
                                                              sizeof(bias_type)));
  }
  // Storage read column-major: our B (first operand) and our A (second operand), D^T as [N, M].
  m_a = s.trans_b ? layout(s.k, s.n, s.k) : layout(s.n, s.k, s.n);
  m_b = s.trans_a ? layout(s.m, s.k, s.m) : layout(s.k, s.m, s.k);
  m_d = layout(s.n, s.m, s.n);

  auto pick = [&](uint32_t alignment, cublasLtMatmulAlgo_t& algo, size_t& workspace) {
    cublasLtMatmulPreference_t pref = nullptr;
    IE_CUDA_CHECK(blaslt_api().cublasLtMatmulPreferenceCreate(&pref));
    size_t cap = kMaxWorkspace;
    IE_CUDA_CHECK(blaslt_api().cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                                    &cap, sizeof(cap)));
    for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      IE_CUDA_CHECK(blaslt_api().cublasLtMatmulPreferenceSetAttribute(pref, attr, &alignment, sizeof(alignment)));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    cublasStatus_t st =
        blaslt_api().cublasLtMatmulAlgoGetHeuristic(m_handle, m_op, m_a, m_b, m_d, m_d, pref, 1, &result, &found);
    blaslt_api().cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || found == 0)
      fail(ErrorKind::Device, where, ": cuBLASLt has no algorithm for [", s.m, ", ", s.k, "] x [", s.k, ", ", s.n,
           "] (status ", static_cast<int>(st), ")");
    algo = result.algo;
    workspace = std::max(workspace, result.workspaceSize);
  };
  pick(16, m_algo_aligned, m_workspace);
  pick(4, m_algo_any, m_workspace);
}

LtGemm::~LtGemm() {
  if (m_d) blaslt_api().cublasLtMatrixLayoutDestroy(m_d);
  if (m_b) blaslt_api().cublasLtMatrixLayoutDestroy(m_b);
  if (m_a) blaslt_api().cublasLtMatrixLayoutDestroy(m_a);
  if (m_op) blaslt_api().cublasLtMatmulDescDestroy(m_op);
}

void LtGemm::run(const float* a, const float* b, const float* c, float* d, const float* bias, float alpha,
                 float beta, void* workspace, void* stream) const {
  if (m_has_bias)
    IE_CUDA_CHECK(
        blaslt_api().cublasLtMatmulDescSetAttribute(m_op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
  auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const bool all_aligned = aligned(a) && aligned(b) && aligned(d) && (!c || aligned(c));
  IE_CUDA_CHECK(blaslt_api().cublasLtMatmul(m_handle, m_op, &alpha, b, m_a, a, m_b, &beta, c ? c : d, m_d, d, m_d,
                                            all_aligned ? &m_algo_aligned : &m_algo_any, workspace, m_workspace,
                                            static_cast<cudaStream_t>(stream)));
}

}  // namespace ie::cuda
