// Gemm (float32) on "cuda-reference": one cuBLASLt product (layers/common/cublaslt_gemm.cu). C enters as
//   - nothing when absent or beta = 0;
//   - the BIAS epilogue when it is a row vector [N]/[1,N] and beta = 1 (the Linear-like case, no extra pass);
//   - cuBLASLt's own C when it is a full [M,N];
//   - otherwise broadcast into Y first by a small kernel (one thread per element, grid-stride, coalesced
//     writes), then the product accumulates into Y in place with beta.
#include <memory>

#include "engine/backend/cuda/cuda_state.h"
#include "layers/common/cublaslt_gemm.h"
#include "layers/gemm/gemm_setup.h"

namespace ie {
namespace {

__global__ void broadcast_c(const float* __restrict__ c, float* __restrict__ y, int64_t m, int64_t n, int64_t c_rows,
                            int64_t c_cols) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < m * n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i / n, col = i % n;
    y[i] = c[(c_rows == 1 ? 0 : r) * c_cols + (c_cols == 1 ? 0 : col)];
  }
}

enum class CMode { None, Bias, Full, Broadcast };

class LtGemmKernel : public Kernel {
 public:
  LtGemmKernel(const KernelInit& init, const GemmSetup& s, CMode mode)
      : m_s(s),
        m_mode(mode),
        m_gemm(cuda::state_of(init.backend_state).cublaslt(), cuda::LtShape{s.m, s.n, s.k, s.trans_a, s.trans_b},
               mode == CMode::Bias ? cuda::LtEpilogue::Bias : cuda::LtEpilogue::None,
               cuda::state_of(init.backend_state).tf32(), init.node.label()) {}

  size_t workspace_bytes() const override { return m_gemm.workspace_bytes(); }

  void run(KernelContext& ctx) override {
    const float* a = ctx.inputs[0].as<const float>();
    const float* b = ctx.inputs[1].as<const float>();
    const float* c = m_mode == CMode::None ? nullptr : ctx.inputs[2].as<const float>();
    float* y = ctx.outputs[0].as<float>();
    switch (m_mode) {
      case CMode::None: m_gemm.run(a, b, nullptr, y, nullptr, m_s.alpha, 0.f, ctx.workspace, ctx.stream); break;
      case CMode::Bias: m_gemm.run(a, b, nullptr, y, c, m_s.alpha, 0.f, ctx.workspace, ctx.stream); break;
      case CMode::Full: m_gemm.run(a, b, c, y, nullptr, m_s.alpha, m_s.beta, ctx.workspace, ctx.stream); break;
      case CMode::Broadcast: {
        constexpr int kThreads = 256;
        broadcast_c<<<cuda::blocks_for(m_s.m * m_s.n, kThreads), kThreads, 0,
                      static_cast<cudaStream_t>(ctx.stream)>>>(c, y, m_s.m, m_s.n, m_s.c_rows, m_s.c_cols);
        IE_CUDA_CHECK_LAUNCH();
        m_gemm.run(a, b, y, y, nullptr, m_s.alpha, m_s.beta, ctx.workspace, ctx.stream);
        break;
      }
    }
  }

 private:
  GemmSetup m_s;
  CMode m_mode;
  cuda::LtGemm m_gemm;
};

std::unique_ptr<Kernel> make_gemm_cuda(const KernelInit& init) {
  const bool has_c = init.has_input(2);
  GemmSetup s =
      resolve_gemm(init.node, init.inputs[0].shape, init.inputs[1].shape, has_c ? &init.inputs[2].shape : nullptr);
  for (const TensorInfo& t : init.inputs)
    if (t.dtype != DType::Undefined && t.dtype != DType::Float32) return nullptr;
  if (s.m == 0 || s.n == 0) return make_kernel([](KernelContext&) {});
  if (s.k == 0) return nullptr;  // cuBLASLt rejects K = 0
  CMode mode = CMode::Broadcast;
  if (!has_c || s.beta == 0.f)
    mode = CMode::None;
  else if (s.c_rows == 1 && s.c_cols == s.n && s.beta == 1.f)
    mode = CMode::Bias;
  else if (s.c_rows == s.m && s.c_cols == s.n)
    mode = CMode::Full;
  return std::make_unique<LtGemmKernel>(init, s, mode);
}

}  // namespace

IE_REGISTER_OPS(gemm_cuda) { OpRegistry::get().add_kernel("", "Gemm", kernel_set::kCudaReference, make_gemm_cuda); }

}  // namespace ie
