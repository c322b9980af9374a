// DLPack device arrays on CUDA backends (CUDA builds only): inputs that already live on the session's GPU (PyTorch,
// CuPy, JAX arrays) are copied device to device into the plan, without a host round trip, and outputs can stay on
// the GPU as DLPack arrays that own their memory.
#pragma once

#include <nanobind/nanobind.h>

#include "engine/python/bindings/handles.h"

namespace ie::python {

/// Whether any value of `inputs` is an array in GPU memory.
bool has_device_array(const nanobind::dict& inputs);
/// Runs `session` on `inputs` (device arrays and host arrays alike); outputs on the GPU as DLPack arrays when
/// `device_outputs`, else as NumPy arrays. Waits for the device to be idle before reading the inputs, since their
/// producer may still be writing them on a stream of its own.
nanobind::dict run_on_device(SessionHandle& session, const nanobind::dict& inputs, bool device_outputs);

}  // namespace ie::python
