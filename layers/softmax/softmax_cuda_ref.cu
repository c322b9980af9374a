// Softmax and LogSoftmax (float32) on "cuda-reference" through cudnnSoftmaxForward (ACCURATE: max-subtracted).
// The input is described as [outer, n, inner, 1] and normalized in CHANNEL mode (over n at each outer, inner), so
// any axis runs in place without a transpose; opset < 13's 2-D coercion is the case inner = 1.
#include "engine/backend/cuda/cuda_state.h"
#include "layers/common/cudnn_desc.h"
#include "layers/softmax/softmax_setup.h"

namespace ie {
namespace {

class CudnnSoftmaxKernel : public Kernel {
 public:
  CudnnSoftmaxKernel(const KernelInit& init, const SoftSetup& s, cudnnSoftmaxAlgorithm_t algo)
      : m_algo(algo), m_empty(s.outer * s.n * s.inner == 0) {
    m_handle = cuda::state_of(init.backend_state).cudnn();
    if (!cuda::fits_int({s.outer * s.n * s.inner}))
      init.fail("tensor too large for cuDNN's 32-bit sizes");
    if (!m_empty) m_desc = cuda::nchw_desc(s.outer, s.n, s.inner, 1);
  }

  void run(KernelContext& ctx) override {
    if (m_empty) return;
    const float one = 1.f, zero = 0.f;
    IE_CUDA_CHECK(cuda::dnn_api().cudnnSoftmaxForward(m_handle, m_algo, CUDNN_SOFTMAX_MODE_CHANNEL, &one, m_desc.get(),
                                                      ctx.inputs[0].data, &zero, m_desc.get(), ctx.outputs[0].data));
  }

 private:
  cudnnHandle_t m_handle = nullptr;
  cudnnSoftmaxAlgorithm_t m_algo;
  bool m_empty;
  cuda::TensorDesc m_desc;
};

template <cudnnSoftmaxAlgorithm_t kAlgo>
std::unique_ptr<Kernel> make_softmax_cuda(const KernelInit& init) {
  if (init.inputs[0].dtype != DType::Float32) return nullptr;
  return std::make_unique<CudnnSoftmaxKernel>(init, resolve_soft(init.node, init.inputs[0].shape, init.opset), kAlgo);
}

}  // namespace

IE_REGISTER_OPS(softmax_cuda) {
  auto& r = OpRegistry::get();
  r.add_kernel("", "Softmax", kernel_set::kCudaReference, make_softmax_cuda<CUDNN_SOFTMAX_ACCURATE>);
  r.add_kernel("", "LogSoftmax", kernel_set::kCudaReference, make_softmax_cuda<CUDNN_SOFTMAX_LOG>);
}

}  // namespace ie
