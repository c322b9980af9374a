// CUDA backends: "cuda" (our fused kernel set first, then the reference set where it declines) and
// "cuda-reference" (cuDNN/cuBLAS and plain kernels alone). Device memory comes from the plan's arena
// (one cudaMalloc per plan); weights are uploaded once per engine and shared by its sessions; every session has
// its own non-blocking stream and library handles (made when a kernel first needs one), so nothing runs on the
// default stream.
#include <cstring>
#include <map>
#include <mutex>

#include "engine/backend/backend.h"
#include "engine/backend/cuda/cuda_graph.h"
#include "engine/backend/cuda/cuda_state.h"
#include "engine/backend/cuda/cuda_step_timer.h"
#include "engine/backend/cuda/pinned_stager.h"
#include "engine/backend/kernel_sets.h"
#include "engine/core/error.h"

namespace ie::cuda {

CudaState& state_of(void* backend_state) {
  if (!backend_state) fail(ErrorKind::Usage, "a CUDA kernel was created without a CUDA backend");
  return *static_cast<CudaState*>(backend_state);
}

cublasHandle_t CudaState::cublas() const {
  if (!m_cublas) {
    IE_CUDA_CHECK(cudaSetDevice(device));
    IE_CUDA_CHECK(blas_api().cublasCreate(&m_cublas));
    IE_CUDA_CHECK(blas_api().cublasSetStream(m_cublas, stream));
    IE_CUDA_CHECK(blas_api().cublasSetMathMode(m_cublas, tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH));
  }
  return m_cublas;
}

cublasLtHandle_t CudaState::cublaslt() const {
  if (!m_cublaslt) {
    IE_CUDA_CHECK(cudaSetDevice(device));
    IE_CUDA_CHECK(blaslt_api().cublasLtCreate(&m_cublaslt));
  }
  return m_cublaslt;
}

cudnnHandle_t CudaState::cudnn() const {
  if (!m_cudnn) {
    IE_CUDA_CHECK(cudaSetDevice(device));
    IE_CUDA_CHECK(dnn_api().cudnnCreate(&m_cudnn));
    IE_CUDA_CHECK(dnn_api().cudnnSetStream(m_cudnn, stream));
  }
  return m_cudnn;
}

void CudaState::release_handles() {
  if (m_cudnn) dnn_api().cudnnDestroy(m_cudnn);
  if (m_cublaslt) blaslt_api().cublasLtDestroy(m_cublaslt);
  if (m_cublas) blas_api().cublasDestroy(m_cublas);
  m_cudnn = nullptr, m_cublaslt = nullptr, m_cublas = nullptr;
}

namespace {

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

bool cuda_usable(std::string* reason) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();
    if (reason)
      *reason = err != cudaSuccess ? std::string("no usable CUDA device (") + cudaGetErrorString(err) + ")"
                                   : "no CUDA device found";
    return false;
  }
  return true;
}

// Device copies of constant tensors, shared by all sessions of one engine (keyed by the host buffer).
class DeviceConstants {
 public:
  ~DeviceConstants() {
    for (auto& [k, e] : m_entries) cudaFree(e.device);
  }
  const void* get(const Tensor& t) {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_entries.find(t.data());
    if (it != m_entries.end() && it->second.bytes == t.nbytes()) return it->second.device;
    void* d = nullptr;
    IE_CUDA_CHECK(cudaMalloc(&d, t.nbytes() ? t.nbytes() : 1));
    IE_CUDA_CHECK(cudaMemcpy(d, t.data(), t.nbytes(), cudaMemcpyHostToDevice));
    m_entries[t.data()] = Entry{d, t.nbytes(), t};
    return d;
  }

 private:
  struct Entry {
    void* device;
    size_t bytes;
    Tensor keep;  // keeps the host buffer alive so its address is not reused by another tensor
  };
  std::mutex m_mutex;
  std::map<const void*, Entry> m_entries;
};

// A CUDA event recorded on the session's stream.
class EventFence : public Fence {
 public:
  explicit EventFence(cudaStream_t stream) {
    IE_CUDA_CHECK(cudaEventCreateWithFlags(&m_event, cudaEventDisableTiming));
    if (cudaError_t err = cudaEventRecord(m_event, stream); err != cudaSuccess) {
      cudaEventDestroy(m_event);
      IE_CUDA_CHECK(err);
    }
  }
  ~EventFence() override { cudaEventDestroy(m_event); }
  void wait() override { IE_CUDA_CHECK(cudaEventSynchronize(m_event)); }

 private:
  cudaEvent_t m_event = nullptr;
};

class CudaBackend : public Backend {
 public:
  CudaBackend(std::string name, const Options& options, std::shared_ptr<DeviceConstants> constants)
      : m_name(std::move(name)), m_constants(std::move(constants)) {
    // Options::devices holds this backend's one device (Engine::Impl::new_backend), else the current one.
    if (options.devices.empty())
      IE_CUDA_CHECK(cudaGetDevice(&m_state.device));
    else
      m_state.device = options.devices[0];
    make_current();
    IE_CUDA_CHECK(cudaGetDeviceProperties(&m_state.props, m_state.device));
    IE_CUDA_CHECK(cudaStreamCreateWithFlags(&m_state.stream, cudaStreamNonBlocking));
    m_state.precision = options.precision;  // the library handles come when a kernel first asks (cuda_state.h)
    m_stager = std::make_unique<PinnedStager>(m_state.stream);
  }
  ~CudaBackend() override {
    cudaSetDevice(m_state.device);
    m_stager.reset();
    m_state.release_handles();
    if (m_state.stream) cudaStreamDestroy(m_state.stream);
  }
  std::string name() const override { return m_name; }
  void make_current() override { IE_CUDA_CHECK(cudaSetDevice(m_state.device)); }
  void* allocate(size_t bytes) override {
    make_current();
    void* p = nullptr;
    IE_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
  }
  void deallocate(void* p) override {
    cudaSetDevice(m_state.device);
    cudaFree(p);
  }
  const void* constant_data(const Tensor& t) override {
    make_current();
    return m_constants->get(t);
  }
  void copy_in(void* dst, const void* src, size_t bytes) override {
    make_current();
    m_stager->to_device(dst, src, bytes);
  }
  void copy_out(void* dst, const void* src, size_t bytes) override {
    make_current();
    m_stager->to_host(dst, src, bytes);
  }
  std::shared_ptr<void> allocate_host(size_t bytes) override {
    make_current();
    void* p = nullptr;
    IE_CUDA_CHECK(cudaMallocHost(&p, bytes ? bytes : 1));
    return std::shared_ptr<void>(p, [](void* q) { cudaFreeHost(q); });
  }
  void copy_device(void* dst, const void* src, size_t bytes) override {
    make_current();
    if (bytes) IE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, m_state.stream));
  }
  void synchronize() override { IE_CUDA_CHECK(cudaStreamSynchronize(m_state.stream)); }
  bool asynchronous() const override { return true; }
  std::unique_ptr<Fence> fence() override {
    make_current();
    return std::make_unique<EventFence>(m_state.stream);
  }
  bool page_locked(const void* host) const override { return PinnedStager::is_pinned(host); }
  void copy_out_async(void* dst, const void* src, size_t bytes) override {
    make_current();
    if (bytes && PinnedStager::is_pinned(dst))
      IE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, m_state.stream));
    else
      m_stager->to_host(dst, src, bytes);
  }
  std::unique_ptr<CapturedWork> capture(const std::function<void()>& work) override {
    make_current();
    return capture_graph(m_state.stream, work);
  }
  std::unique_ptr<StepTimer> make_step_timer() override {
    make_current();
    return make_event_step_timer(m_state.stream);
  }
  std::unique_ptr<StepTimer> make_step_annotator() override { return make_nvtx_annotator(); }
  std::string device_name() const override { return m_state.props.name; }
  std::vector<std::pair<std::string, std::string>> device_info() const override { return cuda_device_info(m_state); }
  void* stream() override { return m_state.stream; }
  void* kernel_state() override { return &m_state; }

 private:
  std::string m_name;
  CudaState m_state;
  std::shared_ptr<DeviceConstants> m_constants;
  std::unique_ptr<PinnedStager> m_stager;
};

std::shared_ptr<DeviceConstants> shared_constants(std::shared_ptr<void>* engine_slot) {
  if (!engine_slot) return std::make_shared<DeviceConstants>();
  if (!*engine_slot) *engine_slot = std::make_shared<DeviceConstants>();
  return std::static_pointer_cast<DeviceConstants>(*engine_slot);
}

}  // namespace

IE_REGISTER_BACKEND(cuda_reference) {
  register_backend(
      kernel_set::kCudaReference,
      BackendTraits{{kernel_set::kCudaReference}, {Precision::fp32, Precision::tf32}, cuda_device_count},
      [](const Options& o, std::shared_ptr<void>* slot) {
        return std::make_shared<CudaBackend>(kernel_set::kCudaReference, o, shared_constants(slot));
      },
      cuda_usable);
}

// The fused path: every mode, with the reference kernels serving (in float32 between casts where they must) the
// nodes the fused set declines, in the same arena and stream.
IE_REGISTER_BACKEND(cuda_fused) {
  register_backend(
      kernel_set::kCuda,
      BackendTraits{{kernel_set::kCuda, kernel_set::kCudaReference}, all_precisions(), cuda_device_count},
      [](const Options& o, std::shared_ptr<void>* slot) {
        return std::make_shared<CudaBackend>(kernel_set::kCuda, o, shared_constants(slot));
      },
      cuda_usable);
}

}  // namespace ie::cuda
