// inferengine.Session: runs with the GIL released, NumPy in and out without copies at the boundary, per-step
// profiles; and the profile report classes.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "engine/python/bindings/arrays.h"
#include "engine/python/bindings/handles.h"
#ifdef IE_HAVE_CUDA
#include "engine/python/bindings/device_run.h"
#endif

namespace ie::python {

namespace nb = nanobind;
using namespace nb::literals;

namespace {

bool wants_dlpack(const std::string& output) {
  if (output != "numpy" && output != "dlpack")
    throw Error(ErrorKind::Usage, "output must be \"numpy\" or \"dlpack\", got \"" + output + "\"");
  return output == "dlpack";
}

nb::dict run(SessionHandle& s, const nb::dict& inputs, const std::string& output) {
  const bool dlpack = wants_dlpack(output);
#ifdef IE_HAVE_CUDA
  // Arrays already on the GPU go device to device; DLPack outputs of a GPU backend stay on the GPU.
  if (s.engine.backend() != "cpu" && (dlpack || has_device_array(inputs))) return run_on_device(s, inputs, dlpack);
#endif
  HostInputs in = host_inputs(inputs);
  std::vector<Tensor> outs;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(*s.lock);
    outs = s.session.run_ordered(in.tensors);
  }
  nb::dict result;
  const auto& decls = s.engine.outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    const std::string what = "output '" + decls[i].name + "'";
    result[decls[i].name.c_str()] = dlpack ? to_dlpack(std::move(outs[i])) : to_numpy(std::move(outs[i]), what);
  }
  return result;
}

ProfileReport profile(SessionHandle& s, const nb::dict& inputs, int warmup, int iterations) {
  if (warmup < 0 || iterations < 1) throw Error(ErrorKind::Usage, "profile needs warmup >= 0 and iterations >= 1");
  HostInputs in = host_inputs(inputs);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(*s.lock);
  return s.session.profile(in.tensors, warmup, iterations);
}

}  // namespace

void bind_session(nb::module_& m) {
  nb::class_<StepProfile>(m, "StepProfile", "One plan step's timing (milliseconds) and what it computes.")
      .def_ro("index", &StepProfile::index)
      .def_ro("name", &StepProfile::name)
      .def_ro("op", &StepProfile::op, "Op type; fused steps name what they folded in.")
      .def_ro("kernel_set", &StepProfile::kernel_set, "The kernel set that served the step (\"cpu\", \"cuda\" ...).")
      .def_ro("covers", &StepProfile::covers, "The ONNX nodes the step replaced.")
      .def_ro("input_shapes", &StepProfile::input_shapes)
      .def_ro("output_shapes", &StepProfile::output_shapes)
      .def_ro("median_ms", &StepProfile::median_ms)
      .def_ro("min_ms", &StepProfile::min_ms)
      .def_ro("max_ms", &StepProfile::max_ms)
      .def_ro("flops", &StepProfile::flops, "Arithmetic of one run of the step (the cost model).")
      .def_ro("bytes", &StepProfile::bytes, "Fewest bytes the step must move.")
      .def("__repr__", [](const StepProfile& p) {
        return "StepProfile(" + std::to_string(p.index) + ", '" + p.op + "', median_ms=" + std::to_string(p.median_ms) +
               ")";
      });

  nb::class_<ProfileReport>(m, "ProfileReport", "Per-step medians of Session.profile().")
      .def_ro("backend", &ProfileReport::backend)
      .def_ro("device", &ProfileReport::device)
      .def_ro("iterations", &ProfileReport::iterations)
      .def_ro("total_ms", &ProfileReport::total_ms, "The sum of the step medians.")
      .def_ro("steps", &ProfileReport::steps)
      .def("__repr__", [](const ProfileReport& r) {
        return "ProfileReport(backend='" + r.backend + "', steps=" + std::to_string(r.steps.size()) +
               ", total_ms=" + std::to_string(r.total_ms) + ")";
      });

  nb::class_<SessionHandle>(m, "Session",
                            "Runs one engine's model. Calls from several threads on one session queue; make one "
                            "session per thread to run in parallel.")
      .def("run", &run, "inputs"_a, nb::kw_only(), "output"_a = "numpy",
           nb::sig("def run(self, inputs: collections.abc.Mapping[str, numpy.typing.ArrayLike], *, output: str = "
                   "'numpy') -> dict[str, typing.Any]"),
           "Runs the model on {input name: array} and returns {output name: array} in the graph's output order.\n"
           "C-contiguous host arrays are read in place (others are copied to C order first); dtypes must be the\n"
           "declared ones. output=\"numpy\" gives NumPy arrays; \"dlpack\" gives arrays with __dlpack__ (on the GPU\n"
           "for CUDA backends). On CUDA backends, inputs may be DLPack device arrays on the session's GPU (PyTorch,\n"
           "CuPy, JAX), copied device to device. The GIL is released while the model runs.")
      .def("profile", &profile, "inputs"_a, "warmup"_a = 5, "iterations"_a = 20,
           nb::sig("def profile(self, inputs: collections.abc.Mapping[str, numpy.typing.ArrayLike], warmup: int = 5, "
                   "iterations: int = 20) "
                   "-> ProfileReport"),
           "Times every step separately: `warmup` untimed runs, then `iterations` timed ones; medians per step.")
      .def_prop_ro(
          "device_name", [](const SessionHandle& s) { return s.session.device_name(); },
          "The device that runs the session (GPU name or CPU model).")
      .def_ro("device_index", &SessionHandle::device_index, "Which of the engine's devices the session runs on.");
}

}  // namespace ie::python
