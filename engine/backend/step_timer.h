// Brackets the steps of a run: per-step times for Session::profile, trace ranges (NVTX) for Nsight. Each backend
// makes its own (Backend::make_step_timer): a steady clock on the CPU, a pair of CUDA events per step on GPUs.
//
//   auto timer = backend->make_step_timer();
//   run_steps(plan, {}, timer.get());             // start(i, name) / stop(i) around every step
//   std::vector<double> ms = timer->elapsed_ms();  // one wait for the device, then one time per step
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ie {

class StepTimer {
 public:
  virtual ~StepTimer() = default;
  /// Before step `index` is issued; `name` labels its trace range.
  virtual void start(size_t index, const std::string& name) = 0;
  /// After step `index` is issued (on asynchronous backends it may still be running).
  virtual void stop(size_t index) = 0;
  /// Milliseconds of steps 0..n-1 timed since the last call (n = highest index + 1), waiting for the device once.
  /// Empty for a timer that only annotates traces.
  virtual std::vector<double> elapsed_ms() = 0;
};

/// Host steady-clock timer; `synchronize` (may be empty) runs before each stop so asynchronous work is counted.
std::unique_ptr<StepTimer> make_host_step_timer(std::function<void()> synchronize);

/// Whether IE_NVTX=1 asks for trace ranges around every step of ordinary runs.
bool nvtx_requested();

}  // namespace ie
