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
  cublasHandle_t cublas = nullptr;
  cublasLtHandle_t cublaslt = nullptr;
  cudnnHandle_t cudnn = nullptr;
  Precision precision = Precision::fp32;
  bool tf32() const { return precision == Precision::tf32; }
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
