// The backend interface: memory, copies, synchronization, and the registry key of its kernels.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/api/engine.h"
#include "engine/backend/step_timer.h"
#include "engine/registry/op_def.h"

namespace ie {

class ThreadPool;

/// Work recorded once and replayed (a CUDA graph): the steps of a plan, launched as one unit.
class CapturedWork {
 public:
  virtual ~CapturedWork() = default;
  /// Enqueues the recorded work on the stream it was recorded from.
  virtual void launch() = 0;
};

/// A point in a backend's stream of work: wait() returns once everything issued before it has finished.
class Fence {
 public:
  virtual ~Fence() = default;
  virtual void wait() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// The backend's registered name ("cpu", "cuda-reference", ...).
  virtual std::string name() const = 0;
  /// Kernel sets this backend serves, in the order the planner tries them for each node (its registered traits).
  const std::vector<std::string>& kernel_sets() const;
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* ptr) = 0;
  /// Pointer to a constant tensor's data in this backend's memory (uploaded once and cached by the backend).
  virtual const void* constant_data(const Tensor& constant) = 0;
  virtual void copy_in(void* dst, const void* host_src, size_t bytes) = 0;
  /// Host memory the backend copies fastest (page-locked on GPU backends), freed with the returned pointer.
  virtual std::shared_ptr<void> allocate_host(size_t bytes);
  virtual void copy_out(void* host_dst, const void* src, size_t bytes) = 0;
  /// Waits until all work issued so far has finished.
  virtual void synchronize() {}
  /// Makes this backend's device the calling thread's current one (several GPUs driven from one thread).
  virtual void make_current() {}
  /// The thread pool its CPU kernels run on (made current around planning and steps); nullptr: the default pool.
  virtual ThreadPool* thread_pool() { return nullptr; }
  /// True when copies and kernels only enqueue work (GPU streams): a caller may overlap batches, waiting on fence().
  virtual bool asynchronous() const { return false; }
  /// Marks the work issued so far; its wait() returns once that work has finished. Default: already passed.
  virtual std::unique_ptr<Fence> fence();
  /// Whether `host` lies in page-locked memory, which this backend's copies use without staging.
  virtual bool page_locked(const void* host) const;
  /// Copies device -> host without waiting when `host_dst` is page-locked (done at the next fence); otherwise
  /// as copy_out, which waits.
  virtual void copy_out_async(void* host_dst, const void* src, size_t bytes) { copy_out(host_dst, src, bytes); }
  /// Stream that kernels run on (cudaStream_t), or nullptr.
  virtual void* stream() { return nullptr; }
  /// Backend-specific state handed to kernel factories (library handles, device properties).
  virtual void* kernel_state() { return nullptr; }
  /// Copies between two buffers of this backend (staged benchmark inputs into the arena), in stream order.
  virtual void copy_device(void* dst, const void* src, size_t bytes);
  /// Records what `work` enqueues on stream() into a replayable unit without running it; nullptr when the backend
  /// cannot or the recording failed (`work` threw, or enqueued something that cannot be recorded), in which case
  /// nothing ran and the caller runs the work directly. Default: nullptr.
  virtual std::unique_ptr<CapturedWork> capture(const std::function<void()>& work);
  /// Times steps for Session::profile (default: a steady clock, synchronizing after each step).
  virtual std::unique_ptr<StepTimer> make_step_timer();
  /// Trace ranges only, around the steps of ordinary runs when IE_NVTX=1 (nullptr: this backend has none).
  virtual std::unique_ptr<StepTimer> make_step_annotator() { return nullptr; }
  /// The device that runs the kernels: the GPU's name, or the CPU's model name.
  virtual std::string device_name() const;
  /// Device and library facts for benchmark headers, in display order (name, value).
  virtual std::vector<std::pair<std::string, std::string>> device_info() const;
};

/// `engine_slot` holds state shared by every backend made for one engine (e.g. device copies of the weights).
using BackendFactory = std::function<std::shared_ptr<Backend>(const Options&, std::shared_ptr<void>* engine_slot)>;

/// What the planner and the engine know of a backend without making one.
struct BackendTraits {
  std::vector<std::string> kernel_sets;  // tried in this order for every node; a set may decline, passing it on
  std::vector<Precision> precisions;     // modes it implements; others are refused by name at load
  std::function<int()> device_count;     // devices it can serve on here (null: one, the host)
};

/// Backends register themselves by name; the CUDA ones only exist in CUDA builds. `available` may be null (always).
void register_backend(const std::string& name, BackendTraits traits, BackendFactory factory,
                      std::function<bool(std::string*)> available);
/// The traits a backend registered; throws Error(Usage) naming the known backends when `name` is unknown.
const BackendTraits& backend_traits(const std::string& name);
/// Throws Error(Usage) when backend `name` does not implement `precision`, listing the modes it does.
void check_precision(const std::string& name, Precision precision);
/// Creates a backend by name ("auto" picks cuda when usable, else cpu); throws Error(Usage) on an unknown name.
std::shared_ptr<Backend> make_backend(const std::string& name, const Options& options,
                                      std::shared_ptr<void>* engine_slot = nullptr);
/// Throws Error(Usage) naming the first of `devices` that backend `name` does not have (numbers from 0).
void check_devices(const std::string& name, const std::vector<int>& devices);
/// The devices backend `name` can serve on here (Options::devices takes numbers below it); "auto" resolves first.
int backend_device_count(const std::string& name);
/// Starts a backend's device ahead of use (the CUDA context and stream; library handles wait for the first kernel
/// that needs them), so that a caller can overlap that start-up with its own work, e.g. reading input files on
/// another thread. Errors are left for the engine's load to report; the host backend has nothing to start.
void warm_up_backend(const std::string& name, const Options& options);
/// Whether a backend exists in this build and can run here; `reason` says why not.
bool backend_available(const std::string& name, std::string* reason);
/// The name "auto" resolves to on this machine: cuda, else cuda-reference, else cpu.
std::string resolve_backend_name(const std::string& name);

}  // namespace ie

#define IE_REGISTER_BACKEND(tag) IE_REGISTER_OPS(backend_##tag)
