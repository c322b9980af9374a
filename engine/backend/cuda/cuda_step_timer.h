// Step timers of the CUDA backends: a pair of events per step recorded on the session's stream (read after one
// synchronization per run) and an NVTX range per step, so Nsight Systems shows each step by name.
#pragma once

#include <memory>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/step_timer.h"

namespace ie::cuda {

/// Events + NVTX ranges on `stream`.
std::unique_ptr<StepTimer> make_event_step_timer(cudaStream_t stream);
/// NVTX ranges only (IE_NVTX=1 on ordinary runs); elapsed_ms() is empty.
std::unique_ptr<StepTimer> make_nvtx_annotator();

}  // namespace ie::cuda
