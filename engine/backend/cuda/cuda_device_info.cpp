// What a benchmark header says about the GPU and the libraries (trtexec prints the same facts).
#include <string>

#include "engine/backend/cuda/cuda_state.h"

namespace ie::cuda {

namespace {
// CUDA encodes 12.4 as 12040; cuDNN and cuBLAS encode 9.1.2 as 90102.
std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }
std::string library_version(size_t v) {
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}
int attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, attr, device) != cudaSuccess) cudaGetLastError();
  return v;
}
}  // namespace

std::vector<std::pair<std::string, std::string>> cuda_device_info(const CudaState& s) {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  int major = 0, minor = 0, patch = 0;  // without a handle: a header need not load cuBLAS
  blas_api().cublasGetProperty(MAJOR_VERSION, &major);
  blas_api().cublasGetProperty(MINOR_VERSION, &minor);
  blas_api().cublasGetProperty(PATCH_LEVEL, &patch);
  const int cublas = major * 10000 + minor * 100 + patch;
  const size_t cudnn = dnn_api().cudnnGetVersion();
  const int sm_clock_khz = attribute(cudaDevAttrClockRate, s.device);
  const int mem_clock_khz = attribute(cudaDevAttrMemoryClockRate, s.device);
  const std::string cc = std::to_string(s.props.major) + "." + std::to_string(s.props.minor);
  return {
      {"gpu", s.props.name},
      {"compute capability", cc},
      {"SMs", std::to_string(s.props.multiProcessorCount)},
      {"SM clock (MHz)", std::to_string(sm_clock_khz / 1000)},
      {"memory clock (MHz)", std::to_string(mem_clock_khz / 1000)},
      {"memory (MiB)", std::to_string(s.props.totalGlobalMem >> 20)},
      {"driver (CUDA)", cuda_version(driver)},
      {"CUDA runtime", cuda_version(runtime)},
      {"cuDNN", library_version(cudnn)},
      {"cuBLAS", library_version(static_cast<size_t>(cublas))},
      {"precision", precision_name(s.precision)},
  };
}

}  // namespace ie::cuda
