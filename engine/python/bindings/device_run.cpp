// DLPack device arrays in and out of a CUDA session; see device_run.h. The run is Session::run_ordered's, with a
// device-to-device copy in place of the upload for arrays already on the GPU, and outputs copied out of the arena
// into buffers of their own when they stay on the GPU.
#include "engine/python/bindings/device_run.h"

#include <cuda_runtime.h>

#include <mutex>
#include <set>

#include "engine/api/session_impl.h"
#include "engine/core/shape.h"
#include "engine/executor/executor.h"
#include "engine/python/bindings/arrays.h"

namespace ie::python {

namespace nb = nanobind;

namespace {

void check_cuda(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess) throw Error(ErrorKind::Device, what + ": " + cudaGetErrorString(status));
}

bool on_gpu(nb::handle value, AnyArray* array) {
  return nb::try_cast(value, *array, /*convert=*/false) && array->device_type() == nb::device::cuda::value;
}

int session_device(const SessionHandle& s) {
  const auto& devices = s.session.impl()->engine->options.devices;
  if (!devices.empty()) return devices.at(s.device_index);
  int current = 0;
  check_cuda(cudaGetDevice(&current), "cudaGetDevice");
  return current;
}

// A GPU array as a tensor whose data pointer is device memory: only its shape and dtype are read on the host.
Tensor device_view(const AnyArray& a, const std::string& what) {
  std::vector<int64_t> shape(a.ndim());
  int64_t expected = 1;
  for (size_t i = a.ndim(); i-- > 0;) {
    shape[i] = static_cast<int64_t>(a.shape(i));
    if (a.shape(i) != 1 && a.stride(i) != expected)
      throw Error(ErrorKind::BadInput, what + " is a strided view on the GPU: pass a contiguous array (.contiguous())");
    expected *= shape[i];
  }
  std::shared_ptr<void> borrowed(const_cast<void*>(a.data()), [](void*) {});
  return Tensor(dtype_from_dlpack(a.dtype(), what), std::move(shape), std::move(borrowed));
}

// A GPU buffer of the session's backend, freed by the backend when the last DLPack consumer lets go.
struct DeviceBuffer {
  std::shared_ptr<Backend> backend;
  void* data = nullptr;
  ~DeviceBuffer() { backend->deallocate(data); }
};

nb::object device_array(std::shared_ptr<Backend> backend, const TensorInfo& info, const void* src, int device) {
  auto* buffer = new DeviceBuffer{backend, nullptr};
  nb::capsule owner(buffer, [](void* p) noexcept { delete static_cast<DeviceBuffer*>(p); });
  const size_t bytes = static_cast<size_t>(checked_numel(info.shape)) * dtype_size(info.dtype);
  buffer->data = backend->allocate(bytes);
  backend->copy_device(buffer->data, src, bytes);
  std::vector<size_t> shape(info.shape.begin(), info.shape.end());
  return nb::ndarray<nb::array_api>(buffer->data, shape.size(), shape.data(), owner, nullptr,
                                    dlpack_from_dtype(info.dtype), nb::device::cuda::value, device)
      .cast();
}

}  // namespace

bool has_device_array(const nb::dict& inputs) {
  AnyArray array;
  for (auto [key, value] : inputs)
    if (on_gpu(value, &array)) return true;
  return false;
}

nb::dict run_on_device(SessionHandle& s, const nb::dict& inputs, bool device_outputs) {
  Session::Impl& impl = *s.session.impl();
  const int device = session_device(s);
  HostInputs in;
  std::vector<AnyArray> gpu_arrays;
  std::set<std::string> on_device;
  for (auto [key, value] : inputs) {
    AnyArray array;
    if (!on_gpu(value, &array)) {
      in.add(key, value);
      continue;
    }
    const std::string name = input_name(key);
    const std::string what = "input '" + name + "'";
    if (array.device_id() != device)
      throw Error(ErrorKind::Usage, what + " is on GPU " + std::to_string(array.device_id()) +
                                        ", the session runs on GPU " + std::to_string(device));
    gpu_arrays.push_back(array);
    Tensor view = device_view(array, what);
    if (may_be_bound_value(view)) {  // the planner reads shape inputs' values on the host
      Tensor host = Tensor::uninitialized(view.dtype(), view.shape());
      check_cuda(cudaMemcpy(host.data(), view.data(), view.nbytes(), cudaMemcpyDeviceToHost), "reading " + what);
      in.tensors[name] = host;
    } else {
      in.tensors[name] = view;
      on_device.insert(name);
    }
  }
  std::vector<Tensor> host_outputs;
  Plan* plan = nullptr;
  std::unique_lock<std::mutex> guard(*s.lock, std::defer_lock);  // unlocked last, with the GIL held again
  {
    nb::gil_scoped_release release;
    guard.lock();
    impl.backend->make_current();
    // The arrays' producer (PyTorch, CuPy, JAX) may still be writing them on streams of its own.
    check_cuda(cudaDeviceSynchronize(), "waiting for the input arrays");
    plan = &impl.plan_for(in.tensors);
    check_input_names(plan->graph.inputs, plan->bound_inputs, in.tensors);
    for (size_t i = 0; i < plan->graph.inputs.size(); ++i) {
      const std::string& name = plan->graph.inputs[i].name;
      const Tensor& t = in.tensors.at(name);
      const Slot& slot = plan->slots[plan->input_slots[i]];
      if (t.dtype() != slot.info.dtype || t.shape() != slot.info.shape)
        throw Error(ErrorKind::BadInput, "input '" + name + "': expected " + dtype_name(slot.info.dtype) + " " +
                                             shape_to_string(slot.info.shape) + ", got " + dtype_name(t.dtype()) + " " +
                                             shape_to_string(t.shape()));
      void* dst = plan->slot_data(plan->input_slots[i]);
      if (on_device.count(name))
        impl.backend->copy_device(dst, t.data(), t.nbytes());
      else
        impl.backend->copy_in(dst, t.data(), t.nbytes());
    }
    run_steps(*plan, impl.observer, impl.annotator.get());
    if (!device_outputs) host_outputs = fetch_outputs(*plan);
  }
  nb::dict result;
  const auto& decls = s.engine.outputs();
  for (size_t i = 0; i < decls.size(); ++i) {
    const int slot = plan->output_slots[i];
    result[decls[i].name.c_str()] =
        device_outputs ? device_array(impl.backend, plan->slots[slot].info, plan->slot_data(slot), device)
                       : to_numpy(std::move(host_outputs[i]), "output '" + decls[i].name + "'");
  }
  // The copies out of the arena finish before the next run may overwrite it.
  if (device_outputs) impl.backend->synchronize();
  return result;
}

}  // namespace ie::python
