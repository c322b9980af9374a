// The split float32 Linear's shapes that the engine's build holds (layers/linear/linear_split_cuda.cu) and their
// launch; the kernel and its weight packing are in linear_split.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "layers/linear/linear_split.cuh"

namespace ie::lin::split {

/// "" when the build holds the kernel for K, N and the activation, else why not.
std::string unsupported(int64_t k, int64_t n, dev::Act act);
/// Launches the compiled kernel for p's shape on `s` (sms: the device's SM count).
cudaError_t launch_compiled(const Params& p, int sms, cudaStream_t s);

}  // namespace ie::lin::split
