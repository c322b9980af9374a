// inferengine._core: the C++ library's Python face (the pure-Python package inferengine re-exports it).
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>

#include "engine/io/tensor_file.h"
#include "engine/python/bindings/arrays.h"
#include "engine/python/bindings/errors.h"
#include "engine/python/bindings/handles.h"

namespace nb = nanobind;
using namespace nb::literals;

NB_MODULE(_core, m) {
  m.doc() = "InferEngine's C++ library: engines, sessions, tensor files and the error classes.";
  m.attr("__version__") = IE_VERSION;
  ie::python::bind_errors(m);
  ie::python::bind_engine(m);
  ie::python::bind_session(m);
  ie::python::bind_pipeline(m);

  m.def(
      "_view_address",
      [](nb::handle array) { return reinterpret_cast<uintptr_t>(ie::python::host_array(array, "array").data()); },
      "array"_a, "The address a run reads `array` from: the array's own when no copy is made (tests use it).");
  m.def(
      "read_tensor",
      [](const std::filesystem::path& path, std::optional<std::vector<int64_t>> shape,
         std::optional<std::string> dtype) {
        std::optional<ie::DType> type;
        if (dtype) type = ie::dtype_from_name(*dtype);
        ie::Tensor t;
        {
          nb::gil_scoped_release release;
          t = ie::read_tensor_file(path.string(), shape, type);
        }
        return ie::python::to_numpy(std::move(t), path.string());
      },
      "path"_a, "shape"_a = nb::none(), "dtype"_a = nb::none(),
      nb::sig("def read_tensor(path: str | os.PathLike[str], shape: collections.abc.Sequence[int] | None = None, "
              "dtype: str | None = None) -> numpy.ndarray"),
      "Reads a tensor file as the tools do: .npy, IDX (also gzip: Fashion-MNIST's files), or raw binary with\n"
      "shape and dtype.");
  m.def(
      "write_tensor",
      [](const std::filesystem::path& path, nb::handle array) {
        ie::python::HostArray host = ie::python::host_array(array, "write_tensor");
        ie::Tensor view = ie::python::tensor_view(host, "write_tensor");
        nb::gil_scoped_release release;
        ie::write_tensor_file(path.string(), view);
      },
      "path"_a, "array"_a,
      nb::sig("def write_tensor(path: str | os.PathLike[str], array: numpy.typing.ArrayLike) -> None"),
      "Writes an array by extension (.npy, .csv, .bin/.raw), atomically: no partial file is ever left.");
}
