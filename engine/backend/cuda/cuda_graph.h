// Recording a plan's steps as a CUDA graph (stream capture) and replaying it: one launch for the whole schedule
// instead of one per step.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>

#include "engine/backend/backend.h"

namespace ie::cuda {

/// Captures what `work` enqueues on `stream` (thread-local capture mode) and instantiates it; nullptr when `work`
/// threw or enqueued something a graph cannot hold (a synchronization, the legacy stream, a pageable copy), with
/// the stream left usable and nothing run.
std::unique_ptr<CapturedWork> capture_graph(cudaStream_t stream, const std::function<void()>& work);

}  // namespace ie::cuda
