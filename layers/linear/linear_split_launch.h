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
/// IE_LINEAR_FP32, the strict-fp32 Linear's override ("" when unset): split, nosplit, ffma or cublas.
std::string fp32_linear_choice();
/// Whether the fused set's strict-fp32 Linear takes the split kernel for a product: the build holds K, N and the
/// activation, from kSplitMinRows rows (IE_LINEAR_FP32=split: at every row count; =nosplit, =ffma, =cublas: never).
bool fp32_linear_takes(int64_t rows, int64_t k, int64_t n, dev::Act act);
/// Launches the compiled kernel for p's shape on `s` (sms: the device's SM count).
cudaError_t launch_compiled(const Params& p, int sms, cudaStream_t s);

}  // namespace ie::lin::split
