// What CUDA kernels get at plan time (KernelInit::backend_state): the session's stream and library handles.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/core/precision.h"

namespace ie::cuda {

struct CudaState {
  int device = 0;
  cudaDeviceProp props{};
  cudaStream_t stream = nullptr;
  Precision precision = Precision::fp32;
  bool tf32() const { return precision == Precision::tf32; }

  // The library handles, each made the first time a kernel asks for it, on this state's stream (cuBLAS in the
  // precision's math mode): a plan on the fused kernels alone never loads cuDNN or cuBLAS, whose handles cost a
  // session's setup tens of milliseconds. Called at plan time, by the thread that plans the session.
  cublasHandle_t cublas() const;
  cublasLtHandle_t cublaslt() const;
  cudnnHandle_t cudnn() const;
  /// Destroys the handles made so far (the backend, as it goes).
  void release_handles();

 private:
  mutable cublasHandle_t m_cublas = nullptr;
  mutable cublasLtHandle_t m_cublaslt = nullptr;
  mutable cudnnHandle_t m_cudnn = nullptr;
};

/// The CudaState a kernel factory receives; fails clearly when a kernel is created outside a CUDA backend.
CudaState& state_of(void* backend_state);

/// GPU name, SM count, clocks, memory, driver and CUDA/cuDNN/cuBLAS versions, for benchmark headers.
std::vector<std::pair<std::string, std::string>> cuda_device_info(const CudaState& state);

/// Number of blocks for `n` items at `threads` per block, capped for grid-stride loops.
inline unsigned blocks_for(int64_t n, int threads) {
  int64_t b = (n + threads - 1) / threads;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b > 65535 * 32 ? 65535 * 32 : b);
}

}  // namespace ie::cuda
