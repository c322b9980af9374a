#include "engine/backend/step_timer.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

namespace ie {

namespace {

class HostStepTimer : public StepTimer {
 public:
  explicit HostStepTimer(std::function<void()> synchronize) : m_synchronize(std::move(synchronize)) {}
  void start(size_t index, const std::string&) override {
    if (index >= m_ms.size()) m_ms.resize(index + 1, 0.0);
    m_start = Clock::now();
  }
  void stop(size_t index) override {
    if (m_synchronize) m_synchronize();
    m_ms[index] = std::chrono::duration<double, std::milli>(Clock::now() - m_start).count();
  }
  std::vector<double> elapsed_ms() override { return std::move(m_ms); }

 private:
  using Clock = std::chrono::steady_clock;
  std::function<void()> m_synchronize;
  Clock::time_point m_start;
  std::vector<double> m_ms;
};

}  // namespace

std::unique_ptr<StepTimer> make_host_step_timer(std::function<void()> synchronize) {
  return std::make_unique<HostStepTimer>(std::move(synchronize));
}

bool nvtx_requested() {
  const char* env = std::getenv("IE_NVTX");
  return env && std::strcmp(env, "1") == 0;
}

}  // namespace ie
