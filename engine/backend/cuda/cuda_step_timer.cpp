#include "engine/backend/cuda/cuda_step_timer.h"

#include <nvtx3/nvToolsExt.h>

#include <vector>

namespace ie::cuda {

namespace {

class EventStepTimer : public StepTimer {
 public:
  explicit EventStepTimer(cudaStream_t stream) : m_stream(stream) {}
  ~EventStepTimer() override {
    for (auto& p : m_events) {
      cudaEventDestroy(p.first);
      cudaEventDestroy(p.second);
    }
  }
  void start(size_t index, const std::string& name) override {
    while (m_events.size() <= index) {
      cudaEvent_t a = nullptr, b = nullptr;
      IE_CUDA_CHECK(cudaEventCreate(&a));
      IE_CUDA_CHECK(cudaEventCreate(&b));
      m_events.emplace_back(a, b);
    }
    if (index + 1 > m_used) m_used = index + 1;
    nvtxRangePushA(name.c_str());
    IE_CUDA_CHECK(cudaEventRecord(m_events[index].first, m_stream));
  }
  void stop(size_t index) override {
    IE_CUDA_CHECK(cudaEventRecord(m_events[index].second, m_stream));
    nvtxRangePop();
  }
  std::vector<double> elapsed_ms() override {
    std::vector<double> ms(m_used, 0.0);
    if (m_used) IE_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    for (size_t i = 0; i < m_used; ++i) {
      float t = 0;
      IE_CUDA_CHECK(cudaEventElapsedTime(&t, m_events[i].first, m_events[i].second));
      ms[i] = t;
    }
    m_used = 0;
    return ms;
  }

 private:
  cudaStream_t m_stream;
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> m_events;
  size_t m_used = 0;
};

class NvtxAnnotator : public StepTimer {
 public:
  void start(size_t, const std::string& name) override { nvtxRangePushA(name.c_str()); }
  void stop(size_t) override { nvtxRangePop(); }
  std::vector<double> elapsed_ms() override { return {}; }
};

}  // namespace

std::unique_ptr<StepTimer> make_event_step_timer(cudaStream_t stream) {
  return std::make_unique<EventStepTimer>(stream);
}

std::unique_ptr<StepTimer> make_nvtx_annotator() { return std::make_unique<NvtxAnnotator>(); }

}  // namespace ie::cuda
