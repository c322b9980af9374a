// The library's errors as Python exceptions that keep their kind: one base class, inferengine.Error (a
// RuntimeError), and one subclass per ie::ErrorKind, each with `kind` and `exit_code` class attributes:
//
//   try: engine = ie.Engine.load("missing.onnx")
//   except ie.BadInputError as e: ...          # e.kind == "bad_input", e.exit_code == 3 (the tools' exit code)
//
// UsageError and BadInputError are also ValueErrors, so generic callers that catch ValueError see bad arguments.
#pragma once

#include <nanobind/nanobind.h>

namespace ie::python {

/// Adds the exception classes to `m` and translates ie::Error into them.
void bind_errors(nanobind::module_& m);

}  // namespace ie::python
