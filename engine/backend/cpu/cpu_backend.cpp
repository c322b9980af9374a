// The CPU backend: host memory, plain copies, Eigen/OpenMP kernels registered under "cpu".
#include <cstdlib>
#include <cstring>

#include "engine/backend/backend.h"
#include "engine/backend/kernel_sets.h"
#include "engine/core/error.h"

namespace ie {

namespace {

class CpuBackend : public Backend {
 public:
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
};

}  // namespace

IE_REGISTER_BACKEND(cpu) {
  register_backend(kernel_set::kCpu, BackendTraits{{kernel_set::kCpu}, {Precision::fp32}, nullptr},
                   [](const Options&, std::shared_ptr<void>*) { return std::make_shared<CpuBackend>(); }, nullptr);
}

}  // namespace ie
