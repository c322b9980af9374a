// Names of the kernel sets: the registry key under which each op's kernels are registered. A backend serves an
// ordered list of sets (the fused CUDA backend: kCuda, then kCudaReference), so the names live here only.
#pragma once

namespace ie::kernel_set {

inline constexpr const char* kCpu = "cpu";                        // Eigen and thread-pool host kernels
inline constexpr const char* kCuda = "cuda";                      // our fused CUDA kernels
inline constexpr const char* kCudaReference = "cuda-reference";  // cuDNN/cuBLAS and plain CUDA kernels

}  // namespace ie::kernel_set
