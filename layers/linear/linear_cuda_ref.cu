// ie.Linear (float32) on "cuda-reference": Y = act(A W + bias) (+ residual) as one cuBLASLt product whose
// epilogue adds the bias and applies Relu (BIAS / RELU / RELU_BIAS). A's leading dims fold into M. Without an
// activation the residual comes in as cuBLASLt's C (beta = 1). The other activations, and a residual after an
// activation, run as a second, element-wise kernel over Y in place: cuBLASLt's GELU epilogue is the tanh
// approximation, and the models use the exact, erf-based GELU.
#include <memory>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_state.h"
#include "layers/common/cublaslt_gemm.h"
#include "layers/common/cuda_util.cuh"
#include "layers/linear/linear_setup.h"

namespace ie {
namespace {

// y = act(y) (+ residual), in place.
__global__ void finish_in_place(float* y, const float* residual, int64_t n, dev::Act act) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i] = dev::activate(act, y[i]) + (residual ? residual[i] : 0.f);
}

cuda::LtEpilogue epilogue_of(bool bias, bool relu) {
  if (bias) return relu ? cuda::LtEpilogue::ReluBias : cuda::LtEpilogue::Bias;
  return relu ? cuda::LtEpilogue::Relu : cuda::LtEpilogue::None;
}

class LtLinearKernel : public Kernel {
 public:
  LtLinearKernel(const KernelInit& init, const LinearSetup& s, bool has_bias)
      : m_has_bias(has_bias),
        m_act(s.activation == Activation::Relu ? dev::Act::None  // in cuBLASLt's epilogue
                                               : cuda::device_activation(s.activation)),
        m_residual_in_c(s.residual && s.activation == Activation::None),
        m_residual_after(s.residual && s.activation != Activation::None),
        m_count(s.rows * s.n),
        m_gemm(cuda::state_of(init.backend_state).cublaslt(), cuda::LtShape{s.rows, s.n, s.k, false, s.trans_w},
               epilogue_of(has_bias, s.activation == Activation::Relu), cuda::state_of(init.backend_state).tf32(),
               init.node.label()) {}

  size_t workspace_bytes() const override { return m_gemm.workspace_bytes(); }

  void run(KernelContext& ctx) override {
    const float* bias = m_has_bias ? ctx.inputs[2].as<const float>() : nullptr;
    const float* residual = m_residual_in_c || m_residual_after ? ctx.inputs[3].as<const float>() : nullptr;
    m_gemm.run(ctx.inputs[0].as<const float>(), ctx.inputs[1].as<const float>(), m_residual_in_c ? residual : nullptr,
               ctx.outputs[0].as<float>(), bias, 1.f, m_residual_in_c ? 1.f : 0.f, ctx.workspace, ctx.stream);
    if (m_act != dev::Act::None || m_residual_after) {
      finish_in_place<<<cuda::grid_for(m_count), cuda::kThreads, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
          ctx.outputs[0].as<float>(), m_residual_after ? residual : nullptr, m_count, m_act);
      IE_CUDA_CHECK_LAUNCH();
    }
  }

 private:
  bool m_has_bias;
  dev::Act m_act;
  bool m_residual_in_c, m_residual_after;
  int64_t m_count;
  cuda::LtGemm m_gemm;
};

std::unique_ptr<Kernel> make_linear_cuda(const KernelInit& init) {
  const bool has_bias = init.has_input(2);
  LinearSetup s =
      resolve_linear(init.node, init.inputs[0].shape, init.inputs[1].shape, has_bias ? &init.inputs[2].shape : nullptr,
                     init.has_input(3) ? &init.inputs[3].shape : nullptr);
  for (const TensorInfo& t : init.inputs)
    if (t.dtype != DType::Undefined && t.dtype != DType::Float32) return nullptr;
  if (s.rows == 0 || s.n == 0) return make_kernel([](KernelContext&) {});
  if (s.k == 0) return nullptr;  // cuBLASLt rejects K = 0
  return std::make_unique<LtLinearKernel>(init, s, has_bias);
}

}  // namespace

IE_REGISTER_OPS(linear_cuda) {
  OpRegistry::get().add_kernel("ie", "Linear", kernel_set::kCudaReference, make_linear_cuda);
}

}  // namespace ie
