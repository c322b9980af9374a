// Defaults of the Backend interface that suit host backends.
#include "engine/backend/backend.h"

#include <cstdlib>
#include <fstream>
#include <thread>

#include "engine/core/cpu_isa.h"
#include "engine/core/error.h"

namespace ie {

namespace {
std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown CPU";
}
}  // namespace

std::shared_ptr<void> Backend::allocate_host(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!p) fail_input("cannot allocate ", bytes, " bytes of host memory");
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

void Backend::copy_device(void*, const void*, size_t) {
  fail(ErrorKind::Usage, "backend '", name(), "' cannot copy between its own buffers");
}

std::unique_ptr<StepTimer> Backend::make_step_timer() {
  return make_host_step_timer([this] { synchronize(); });
}

std::string Backend::device_name() const { return cpu_model_name(); }

std::vector<std::pair<std::string, std::string>> Backend::device_info() const {
  return {{"cpu", cpu_model_name()},
          {"hardware threads", std::to_string(std::thread::hardware_concurrency())},
          {"cpu kernels", cpu_isa_name(cpu_isa())}};
}

namespace {
struct PassedFence : Fence {
  void wait() override {}
};
}  // namespace

std::unique_ptr<Fence> Backend::fence() { return std::make_unique<PassedFence>(); }

bool Backend::page_locked(const void*) const { return false; }

std::unique_ptr<CapturedWork> Backend::capture(const std::function<void()>&) { return nullptr; }

}  // namespace ie
