#include "engine/backend/cuda/cuda_check.h"

#include "engine/core/error.h"

namespace ie::cuda {

namespace {
[[noreturn]] void raise(const char* library, const char* what, const char* expr, const char* file, int line) {
  fail(ErrorKind::Device, library, " call failed: ", expr, ": ", what, " (", file, ":", line, ")");
}
}  // namespace

void check(cudaError_t status, const char* expr, const char* file, int line) {
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error so later calls are not blamed for it
    raise("CUDA", cudaGetErrorString(status), expr, file, line);
  }
}

void check(cublasStatus_t status, const char* expr, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) raise("cuBLAS", blas_api().cublasGetStatusString(status), expr, file, line);
}

void check(cudnnStatus_t status, const char* expr, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) raise("cuDNN", dnn_api().cudnnGetErrorString(status), expr, file, line);
}

}  // namespace ie::cuda
