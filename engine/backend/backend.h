// The backend interface: memory, copies, synchronization, and the registry key of its kernels.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "engine/api/engine.h"
#include "engine/registry/op_def.h"

namespace ie {

class Backend {
 public:
  virtual ~Backend() = default;
  /// Key under which this backend's kernels are registered ("cpu", "cuda", "cuda-reference").
  virtual std::string name() const = 0;
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* ptr) = 0;
  /// Pointer to a constant tensor's data in this backend's memory (uploaded once and cached by the backend).
  virtual const void* constant_data(const Tensor& constant) = 0;
  virtual void copy_in(void* dst, const void* host_src, size_t bytes) = 0;
  virtual void copy_out(void* host_dst, const void* src, size_t bytes) = 0;
  /// Waits until all work issued so far has finished.
  virtual void synchronize() {}
  /// Stream that kernels run on (cudaStream_t), or nullptr.
  virtual void* stream() { return nullptr; }
  /// Backend-specific state handed to kernel factories (library handles, device properties).
  virtual void* kernel_state() { return nullptr; }
  /// Fallback for a node this backend has no kernel for ("" = none: planning fails).
  virtual std::string fallback() const { return ""; }
};

/// `engine_slot` holds state shared by every backend made for one engine (e.g. device copies of the weights).
using BackendFactory = std::function<std::shared_ptr<Backend>(const Options&, std::shared_ptr<void>* engine_slot)>;

/// Backends register themselves by name; the CUDA ones only exist in CUDA builds.
void register_backend(const std::string& name, BackendFactory factory, std::function<bool(std::string*)> available);
/// Creates a backend by name ("auto" picks cuda when usable, else cpu); throws Error(Usage) on an unknown name.
std::shared_ptr<Backend> make_backend(const std::string& name, const Options& options,
                                      std::shared_ptr<void>* engine_slot = nullptr);
/// Whether a backend exists in this build and can run here; `reason` says why not.
bool backend_available(const std::string& name, std::string* reason);
/// The name "auto" resolves to on this machine: cuda, else cuda-reference, else cpu.
std::string resolve_backend_name(const std::string& name);

}  // namespace ie

#define IE_REGISTER_BACKEND(tag) IE_REGISTER_OPS(backend_##tag)
