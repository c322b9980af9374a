// MatMul (float32, numpy broadcasting) on "cuda-reference" through cuBLAS (row-major trick: C^T = B^T A^T in
// column-major, so cuBLAS's first operand is B). The batch layout is classified once at plan time:
//   - B shared by every batch and A's batches contiguous: one tall GEMM with M = batch * rows;
//   - each operand's matrix index linear in the batch index (stride 0 for a broadcast operand): one
//     cublasGemmStridedBatchedEx (attention's [B,H,S,D] x [B,H,D,S]);
//   - any other broadcast: one GEMM per output batch.
#include <memory>

#include "engine/backend/cuda/cuda_state.h"
#include "layers/common/cudnn_desc.h"
#include "layers/matmul/matmul_setup.h"

namespace ie {
namespace {

// The common stride of offsets[i] = i * stride, or -1 when the offsets are not linear in i.
int64_t linear_stride(const std::vector<int64_t>& offsets) {
  const int64_t stride = offsets.size() > 1 ? offsets[1] - offsets[0] : 0;
  if (offsets.empty() || offsets[0] != 0) return -1;
  for (size_t i = 0; i < offsets.size(); ++i)
    if (offsets[i] != static_cast<int64_t>(i) * stride) return -1;
  return stride;
}

class CublasMatMulKernel : public Kernel {
 public:
  CublasMatMulKernel(const KernelInit& init, std::shared_ptr<const MatMulSetup> s) : m_s(std::move(s)) {
    const cuda::CudaState& st = cuda::state_of(init.backend_state);
    m_handle = st.cublas();
    m_compute = st.tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    m_batches = static_cast<int64_t>(m_s->a_offset.size());
    const int64_t sa = linear_stride(m_s->a_offset), sb = linear_stride(m_s->b_offset);
    if (sb == 0 && sa == 1) {
      m_mode = Mode::Tall;
    } else if (sa >= 0 && sb >= 0) {
      m_mode = Mode::Strided;
      m_stride_a = sa * m_s->m * m_s->k;
      m_stride_b = sb * m_s->k * m_s->n;
    }
    if (!cuda::fits_int({m_s->m * m_batches, m_s->n, m_s->k, m_batches}))
      init.fail("matrix dims too large for cuBLAS's 32-bit sizes");
  }

  void run(KernelContext& ctx) override {
    const float* a = ctx.inputs[0].as<const float>();
    const float* b = ctx.inputs[1].as<const float>();
    float* y = ctx.outputs[0].as<float>();
    const int m = static_cast<int>(m_s->m), n = static_cast<int>(m_s->n), k = static_cast<int>(m_s->k);
    if (m_batches == 0 || m == 0 || n == 0) return;
    if (k == 0) {
      IE_CUDA_CHECK(cudaMemsetAsync(y, 0, ctx.outputs[0].nbytes(), static_cast<cudaStream_t>(ctx.stream)));
      return;
    }
    switch (m_mode) {
      case Mode::Tall:
        gemm(b, a, y, n, m * static_cast<int>(m_batches), k, 0, 0, 1);
        break;
      case Mode::Strided:
        gemm(b, a, y, n, m, k, m_stride_b, m_stride_a, static_cast<int>(m_batches));
        break;
      case Mode::Loop:
        for (int64_t i = 0; i < m_batches; ++i)
          gemm(b + m_s->b_offset[i] * m_s->k * m_s->n, a + m_s->a_offset[i] * m_s->m * m_s->k,
               y + i * m_s->m * m_s->n, n, m, k, 0, 0, 1);
        break;
    }
  }

 private:
  enum class Mode { Tall, Strided, Loop };

  // Column-major C[n, m] = B[n, k] A[k, m] for `count` batches (strides in elements).
  void gemm(const float* b, const float* a, float* c, int n, int m, int k, int64_t stride_b, int64_t stride_a,
            int count) const {
    const float one = 1.f, zero = 0.f;
    IE_CUDA_CHECK(cuda::blas_api().cublasGemmStridedBatchedEx(
        m_handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_32F, n, stride_b, a, CUDA_R_32F, k, stride_a,
        &zero, c, CUDA_R_32F, n, static_cast<long long>(m) * n, count, m_compute, CUBLAS_GEMM_DEFAULT));
  }

  std::shared_ptr<const MatMulSetup> m_s;
  cublasHandle_t m_handle = nullptr;
  cublasComputeType_t m_compute = CUBLAS_COMPUTE_32F;
  Mode m_mode = Mode::Loop;
  int64_t m_batches = 0, m_stride_a = 0, m_stride_b = 0;
};

std::unique_ptr<Kernel> make_matmul_cuda(const KernelInit& init) {
  if (init.inputs[0].dtype != DType::Float32 || init.inputs[1].dtype != DType::Float32) return nullptr;
  auto s = std::make_shared<const MatMulSetup>(resolve_matmul(init.node, init.inputs[0].shape, init.inputs[1].shape));
  return std::make_unique<CublasMatMulKernel>(init, std::move(s));
}

}  // namespace

IE_REGISTER_OPS(matmul_cuda) { OpRegistry::get().add_kernel("", "MatMul", kernel_set::kCudaReference, make_matmul_cuda); }

}  // namespace ie
