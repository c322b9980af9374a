// inferengine.Engine and TensorInfo: loading a model (an ONNX file or a model config) with the C++ options as
// keyword arguments, and what it declares.
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>

#include "engine/backend/backend.h"
#include "engine/core/byte_size.h"
#include "engine/io/file_util.h"
#include "engine/python/bindings/handles.h"
#include "tools/common/cli.h"

namespace ie::python {

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// A graph input or output for Python: the dtype by NumPy's name, symbolic dims by their names (None unnamed).
struct TensorInfo {
  std::string name;
  std::string dtype;
  nb::object shape;  // tuple, or None when the model does not declare the rank
};

TensorInfo info_of(const TensorDecl& d) {
  TensorInfo info{d.name, dtype_name(d.dtype), nb::none()};
  if (!d.has_shape) return info;
  nb::list dims;
  for (size_t i = 0; i < d.dims.size(); ++i) {
    const std::string dim_name = i < d.dim_names.size() ? d.dim_names[i] : "";
    if (d.dims[i] >= 0)
      dims.append(d.dims[i]);
    else if (!dim_name.empty())
      dims.append(dim_name);
    else
      dims.append(nb::none());
  }
  info.shape = nb::tuple(dims);
  return info;
}

std::vector<int> devices_from(nb::handle devices, const std::string& backend) {
  if (devices.is_none()) return {};
  if (nb::isinstance<nb::str>(devices))
    return cli::devices_from_text(nb::cast<std::string>(devices), resolve_backend_name(backend));
  std::vector<int> list;
  if (!nb::try_cast(devices, list))
    throw Error(ErrorKind::Usage, "devices must be None, \"all\", \"0,1\" or a list of device numbers");
  return list;
}

bool is_config(const std::filesystem::path& path) {
  const std::string ext = file_extension(path.string());
  return ext == ".yaml" || ext == ".yml";
}

EngineHandle load(const std::filesystem::path& path, const std::string& backend, const std::string& precision,
                  int threads, nb::handle devices, int64_t batch, bool fuse, bool cuda_graphs,
                  const std::vector<std::string>& disabled_fusions, nb::handle max_memory, const std::string& form,
                  bool preprocess) {
  Options opts;
  opts.backend = backend;
  opts.precision = precision_from_name(precision);
  opts.threads = threads;
  opts.batch = batch;
  opts.fuse = fuse;
  opts.cuda_graphs = cuda_graphs;
  opts.disabled_fusions = disabled_fusions;
  opts.devices = devices_from(devices, backend);
  if (!max_memory.is_none())
    opts.limits.max_arena_bytes = opts.limits.max_tensor_bytes =
        nb::isinstance<nb::str>(max_memory) ? parse_byte_size(nb::cast<std::string>(max_memory), "max_memory")
                                            : nb::cast<uint64_t>(max_memory);
  if (form != "legacy" && form != "dynamo") throw Error(ErrorKind::Usage, "form must be \"legacy\" or \"dynamo\"");
  const std::string source = path.string();
  nb::gil_scoped_release release;  // loading and planning touch no Python object
  if (!is_config(path)) {
    if (form != "legacy") throw Error(ErrorKind::Usage, "form applies to model configs (.yaml) only");
    return EngineHandle{Engine::load(source, opts), std::nullopt, source};
  }
  ModelConfig cfg = load_model_config(source);
  if (form == "dynamo") {
    if (cfg.onnx_dynamo.empty()) throw Error(ErrorKind::Usage, source + " names no onnx_dynamo file");
    cfg.onnx = cfg.onnx_dynamo;
  }
  Engine engine = Engine::load(cfg, opts, preprocess);
  return EngineHandle{std::move(engine), std::move(cfg), source};
}

nb::list infos(const std::vector<TensorDecl>& decls) {
  nb::list out;
  for (const auto& d : decls) out.append(info_of(d));
  return out;
}

}  // namespace

void bind_engine(nb::module_& m) {
  nb::class_<TensorInfo>(m, "TensorInfo", "A graph input or output as the model declares it.")
      .def_ro("name", &TensorInfo::name)
      .def_ro("dtype", &TensorInfo::dtype, "NumPy's name of the element type, e.g. \"float32\".")
      .def_prop_ro(
          "shape", [](const TensorInfo& t) { return t.shape; },
          nb::sig("def shape(self) -> tuple[int | str | None, ...] | None"),
          "Dimensions: ints, a symbolic dimension's name (e.g. \"batch\"), None where unnamed; None without a rank.")
      .def("__repr__", [](const TensorInfo& t) {
        return "TensorInfo(name='" + t.name + "', dtype='" + t.dtype +
               "', shape=" + nb::cast<std::string>(nb::repr(t.shape)) + ")";
      });

  nb::class_<EngineHandle>(m, "Engine",
                           "A loaded, validated model; make one Session per thread from it (they share the weights).")
      .def_static(
          "load", &load, "path"_a, nb::kw_only(), "backend"_a = "auto", "precision"_a = "fp32", "threads"_a = 0,
          "devices"_a.none() = nb::none(), "batch"_a = 0, "fuse"_a = true, "cuda_graphs"_a = true,
          "disabled_fusions"_a = std::vector<std::string>{}, "max_memory"_a.none() = nb::none(), "form"_a = "legacy",
          "preprocess"_a = true,
          nb::sig("def load(path: str | os.PathLike[str], *, backend: str = 'auto', precision: str = 'fp32', "
                  "threads: int = 0, devices: str | collections.abc.Sequence[int] | None = None, batch: int = 0, "
                  "fuse: bool = True, cuda_graphs: bool = True, disabled_fusions: collections.abc.Sequence[str] = [], "
                  "max_memory: int | str | None = None, form: str = 'legacy', preprocess: bool = True"
                  ") -> Engine"),
          "Loads an ONNX file, or a model config (.yaml) whose pre-processing then runs as engine ops in\n"
          "front of the model (preprocess=False feeds the model's own input). backend: auto | cpu | cuda |\n"
          "cuda-reference; precision: fp32 | tf32 | fp16 | bf16 as the backend implements; threads: CPU\n"
          "workers (0: all cores); devices: GPUs to serve on (\"all\", \"0,1\" or [0, 1]); batch: plan\n"
          "ahead for this batch; max_memory: the most a plan may take (bytes, or \"64G\"); form: legacy or\n"
          "dynamo, which export of a config.")
      .def(
          "session",
          [](const EngineHandle& e, size_t device) {
            nb::gil_scoped_release release;
            return SessionHandle{e.engine.create_session(device), e.engine, device};
          },
          "device"_a = 0, "A session on the engine's `device`-th device (an index into devices=). One per thread.")
      .def_prop_ro(
          "inputs", [](const EngineHandle& e) { return infos(e.engine.inputs()); },
          nb::sig("def inputs(self) -> list[TensorInfo]"))
      .def_prop_ro(
          "outputs", [](const EngineHandle& e) { return infos(e.engine.outputs()); },
          nb::sig("def outputs(self) -> list[TensorInfo]"))
      .def_prop_ro(
          "backend", [](const EngineHandle& e) { return e.engine.backend(); },
          "The backend that runs the sessions (\"cpu\", \"cuda\", \"cuda-reference\").")
      .def_prop_ro("device_count", [](const EngineHandle& e) { return e.engine.device_count(); })
      .def_prop_ro(
          "class_names",
          [](const EngineHandle& e) { return e.config ? e.config->class_names : std::vector<std::string>{}; },
          "A classification config's class names in label order (empty otherwise).")
      .def_prop_ro(
          "task", [](const EngineHandle& e) { return e.config ? e.config->task : std::string(); },
          "A config's task: \"classification\", \"autoencoder\" or \"\".")
      .def_prop_ro(
          "batch_size", [](const EngineHandle& e) { return e.config ? e.config->batch_size : int64_t(0); },
          "A config's batch size for whole-dataset runs (0 without a config).")
      .def_ro("source", &EngineHandle::source, "The path given to load().")
      .def(
          "describe",
          [](const EngineHandle& e, const std::map<std::string, std::vector<int64_t>>& shapes) {
            nb::gil_scoped_release release;
            return e.engine.describe(shapes);
          },
          "shapes"_a = std::map<std::string, std::vector<int64_t>>{},
          "Graph summary, fused schedule and memory plan for these input shapes (default: batch 1), as inspect "
          "prints them.")
      .def("__repr__",
           [](const EngineHandle& e) { return "Engine('" + e.source + "', backend='" + e.engine.backend() + "')"; });

  m.def(
      "backend_available",
      [](const std::string& name) {
        std::string reason;
        return backend_available(name, &reason);
      },
      "name"_a,
      "Whether backend `name` exists in this build and can run here (\"cpu\", \"cuda\", \"cuda-reference\").");
}

}  // namespace ie::python
