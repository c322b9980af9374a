// One check for CUDA, cuBLAS and cuDNN calls: a failure throws Error(Device) naming the call, file and line.
#pragma once

#include <cuda_runtime.h>

#include "engine/backend/cuda/cuda_libraries.h"

namespace ie::cuda {

void check(cudaError_t status, const char* expr, const char* file, int line);
void check(cublasStatus_t status, const char* expr, const char* file, int line);
void check(cudnnStatus_t status, const char* expr, const char* file, int line);

}  // namespace ie::cuda

#define IE_CUDA_CHECK(expr) ::ie::cuda::check((expr), #expr, __FILE__, __LINE__)
/// After a kernel launch: reports launch-configuration errors at once (execution errors surface at the next sync).
#define IE_CUDA_CHECK_LAUNCH() ::ie::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
