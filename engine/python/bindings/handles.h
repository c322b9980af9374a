// What the Python Engine and Session objects hold: the library's handles plus what Python callers ask of them
// (the config a model came from, a lock so that two Python threads never run one session at once).
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "engine/api/engine.h"
#include "engine/api/model_config.h"

namespace ie::python {

struct EngineHandle {
  Engine engine;
  std::optional<ModelConfig> config;  // set when loaded from a model config
  std::string source;                 // the path given to load()
};

struct SessionHandle {
  Session session;
  Engine engine;            // shares the engine's state: the session's graph outputs, options and devices
  size_t device_index = 0;  // which of the engine's devices (Options::devices) the session runs on
  // Sessions are not thread-safe; the GIL is released while one runs, so concurrent Python calls queue here.
  std::shared_ptr<std::mutex> lock = std::make_shared<std::mutex>();
};

/// Adds Engine and TensorInfo (engine_bindings.cpp).
void bind_engine(nanobind::module_& m);
/// Adds Session and the profile classes (session_bindings.cpp).
void bind_session(nanobind::module_& m);
/// Adds Pipeline, PipelineStats and Engine.pipeline (pipeline_bindings.cpp); after bind_engine.
void bind_pipeline(nanobind::module_& m);

}  // namespace ie::python
