#include "engine/backend/cuda/cuda_graph.h"

#include "engine/backend/cuda/cuda_check.h"

namespace ie::cuda {
namespace {

class GraphWork : public CapturedWork {
 public:
  GraphWork(cudaGraphExec_t exec, cudaStream_t stream) : m_exec(exec), m_stream(stream) {}
  ~GraphWork() override { cudaGraphExecDestroy(m_exec); }
  GraphWork(const GraphWork&) = delete;
  GraphWork& operator=(const GraphWork&) = delete;
  void launch() override { IE_CUDA_CHECK(cudaGraphLaunch(m_exec, m_stream)); }

 private:
  cudaGraphExec_t m_exec;
  cudaStream_t m_stream;
};

}  // namespace

std::unique_ptr<CapturedWork> capture_graph(cudaStream_t stream, const std::function<void()>& work) {
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  bool ran = true;
  try {
    work();
  } catch (...) {
    ran = false;  // a step failed while recording: the caller runs the steps directly and sees the error there
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec = nullptr;
  const bool ok = ran && ended == cudaSuccess && graph &&
                  cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch) == cudaSuccess;
  if (graph) cudaGraphDestroy(graph);
  (void)cudaGetLastError();  // an invalidated capture leaves a sticky-free error behind; clear it
  if (!ok) return nullptr;
  return std::make_unique<GraphWork>(exec, stream);
}

}  // namespace ie::cuda
