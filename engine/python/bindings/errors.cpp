// ie::Error -> the Python class of its kind; see errors.h.
#include "engine/python/bindings/errors.h"

#include <map>

#include "engine/core/exception.h"

namespace ie::python {

namespace nb = nanobind;

namespace {

struct KindClass {
  ErrorKind kind;
  const char* class_name;
  const char* kind_name;
  PyObject* also;  // a built-in base beside inferengine.Error, or null
  const char* doc;
};

// Made once at import and kept for the process (module state would need a module per interpreter; we have one).
std::map<ErrorKind, PyObject*>& classes() {
  static std::map<ErrorKind, PyObject*> by_kind;
  return by_kind;
}

}  // namespace

void bind_errors(nb::module_& m) {
  PyObject* base = PyErr_NewExceptionWithDoc("inferengine._core.Error",
                                             "Every error the engine raises; `kind` and `exit_code` say which.",
                                             PyExc_RuntimeError, nullptr);
  m.attr("Error") = nb::handle(base);
  const KindClass kinds[] = {
      {ErrorKind::CheckFailed, "CheckFailedError", "check_failed", nullptr,
       "A result check failed (accuracy, tolerance)."},
      {ErrorKind::Usage, "UsageError", "usage", PyExc_ValueError, "The caller asked for something impossible."},
      {ErrorKind::BadInput, "BadInputError", "bad_input", PyExc_ValueError, "Bad model, input tensor or file format."},
      {ErrorKind::Device, "DeviceError", "device", nullptr, "CUDA, cuDNN or cuBLAS failure."},
      {ErrorKind::Regression, "RegressionError", "regression", nullptr, "A benchmark was slower than its baseline."},
      {ErrorKind::NonFinite, "NonFiniteError", "non_finite", nullptr, "NaN or Inf in an output."},
  };
  for (const auto& k : kinds) {
    nb::object bases = k.also ? nb::object(nb::make_tuple(nb::handle(base), nb::handle(k.also))) : nb::borrow(base);
    const std::string qualified = std::string("inferengine._core.") + k.class_name;
    PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), k.doc, bases.ptr(), nullptr);
    nb::handle(cls).attr("kind") = k.kind_name;
    nb::handle(cls).attr("exit_code") = static_cast<int>(k.kind);
    m.attr(k.class_name) = nb::handle(cls);
    classes()[k.kind] = cls;
  }
  nb::handle(base).attr("kind") = "error";
  nb::handle(base).attr("exit_code") = 1;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      auto it = classes().find(e.kind());
      PyErr_SetString(it != classes().end() ? it->second : PyExc_RuntimeError, e.what());
    }
  });
}

}  // namespace ie::python
