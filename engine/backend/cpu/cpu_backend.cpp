// The CPU backend: host memory, plain copies, the kernels registered under "cpu", run on one thread pool per
// engine (Options::threads), which every session of the engine shares.
#include <cstdlib>
#include <cstring>

#include "engine/backend/backend.h"
#include "engine/backend/kernel_sets.h"
#include "engine/core/error.h"
#include "engine/core/parallel.h"

namespace ie {

namespace {

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(std::shared_ptr<ThreadPool> pool) : m_pool(std::move(pool)) {}
  std::string name() const override { return kernel_set::kCpu; }
  void* allocate(size_t bytes) override {
    size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded ? rounded : 64);
    if (!p) fail_input("cannot allocate a ", bytes, "-byte arena");
    return p;
  }
  void deallocate(void* ptr) override { std::free(ptr); }
  const void* constant_data(const Tensor& constant) override { return constant.data(); }
  void copy_in(void* dst, const void* src, size_t bytes) override {
    if (bytes && dst != src) std::memcpy(dst, src, bytes);
  }
  void copy_out(void* dst, const void* src, size_t bytes) override {
    if (bytes && dst != src) std::memcpy(dst, src, bytes);
  }
  void copy_device(void* dst, const void* src, size_t bytes) override {
    if (bytes && dst != src) std::memcpy(dst, src, bytes);
  }
  ThreadPool* thread_pool() override { return m_pool.get(); }

 private:
  std::shared_ptr<ThreadPool> m_pool;
};

}  // namespace

IE_REGISTER_BACKEND(cpu) {
  register_backend(kernel_set::kCpu, BackendTraits{{kernel_set::kCpu}, {Precision::fp32}, nullptr},
                   [](const Options& options, std::shared_ptr<void>* shared) {
                     // The engine's pool: made with its first session, shared by the later ones.
                     std::shared_ptr<void> own;
                     std::shared_ptr<void>& slot = shared ? *shared : own;
                     if (!slot) slot = std::make_shared<ThreadPool>(resolve_cpu_threads(options.threads));
                     return std::make_shared<CpuBackend>(std::static_pointer_cast<ThreadPool>(slot));
                   },
                   nullptr);
}

}  // namespace ie
