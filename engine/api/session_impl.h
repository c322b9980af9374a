// The state behind Engine and Session, shared by engine.cpp (running) and session_profile.cpp (timing).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "engine/backend/backend.h"
#include "engine/planner/plan.h"

namespace ie {

struct Engine::Impl {
  Graph graph;
  Options options;
  std::string backend_name;
  PlanOptions plan_options;
  std::mutex backend_mutex;
  std::map<size_t, std::shared_ptr<void>> backend_shared;  // per device: state its sessions share (weights)

  /// A backend on the `index`-th of Options::devices (the current device when none are listed).
  std::shared_ptr<Backend> new_backend(size_t index = 0) {
    std::lock_guard<std::mutex> lock(backend_mutex);
    Options on_device = options;
    if (!options.devices.empty()) on_device.devices = {options.devices.at(index)};
    return make_backend(backend_name, on_device, &backend_shared[index]);
  }
};

/// An input set uploaded once for compute-only benchmarks: backend buffers per graph input.
struct StagedInputs {
  std::map<std::string, Tensor> host;   // keeps shapes (and bound values) for the plan lookup
  std::map<std::string, void*> device;  // backend copies, freed by the session
};

struct Session::Impl {
  std::shared_ptr<const Engine::Impl> engine;
  std::shared_ptr<Backend> backend;
  std::map<std::string, std::unique_ptr<Plan>> plans;  // keyed by input shapes
  Plan* current = nullptr;
  StepObserver observer;
  std::unique_ptr<StepTimer> annotator;    // NVTX ranges when IE_NVTX=1
  std::unique_ptr<StepTimer> phase_timer;  // load / compute / fetch of run_timed and run_staged
  std::set<std::string> value_inputs;      // graph inputs whose values the planner needs (shape-tensor inputs)
  std::vector<StagedInputs> staged;

  ~Impl();
  /// The plan for these inputs' shapes (planned and cached on first use); validates names, dtypes and empties.
  Plan& plan_for(const std::map<std::string, Tensor>& inputs);
  void free_staged();
};

}  // namespace ie
