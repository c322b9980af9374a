// The tuning cache's key for the device a CUDA kernel set runs on (engine/profile/tuning_cache.h): its name and
// the driver version, so that a new driver times every kernel again.
#pragma once

#include "engine/backend/cuda/cuda_state.h"
#include "engine/profile/tuning_cache.h"

namespace ie::cuda {

inline DeviceKey tuning_device_key(const CudaState& st) {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) cudaGetLastError();
  return {st.props.name, driver};
}

}  // namespace ie::cuda
