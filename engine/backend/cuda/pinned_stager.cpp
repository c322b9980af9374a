#include "engine/backend/cuda/pinned_stager.h"

#include <algorithm>
#include <cstring>

#include "engine/core/parallel_copy.h"

namespace ie::cuda {

PinnedStager::PinnedStager(cudaStream_t stream, size_t chunk_bytes) : m_stream(stream), m_chunk(chunk_bytes) {}

PinnedStager::~PinnedStager() {
  for (int i = 0; i < 2; ++i) {
    if (m_done[i]) {
      cudaEventSynchronize(m_done[i]);
      cudaEventDestroy(m_done[i]);
    }
    if (m_buffer[i]) cudaFreeHost(m_buffer[i]);
  }
}

bool PinnedStager::is_pinned(const void* p) {
  if (!p) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

void PinnedStager::ensure_buffers() {
  if (m_buffer[0]) return;
  for (int i = 0; i < 2; ++i) {
    IE_CUDA_CHECK(cudaMallocHost(&m_buffer[i], m_chunk));
    IE_CUDA_CHECK(cudaEventCreateWithFlags(&m_done[i], cudaEventDisableTiming));
    IE_CUDA_CHECK(cudaEventRecord(m_done[i], m_stream));
  }
}

void PinnedStager::to_device(void* dst, const void* src, size_t bytes) {
  if (!bytes) return;
  if (is_pinned(src)) {
    IE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, m_stream));
    return;
  }
  ensure_buffers();
  for (size_t off = 0, k = 0; off < bytes; off += m_chunk, ++k) {
    const size_t n = std::min(m_chunk, bytes - off);
    const int b = static_cast<int>(k % 2);
    IE_CUDA_CHECK(cudaEventSynchronize(m_done[b]));  // the DMA that last read this buffer has finished
    parallel_copy(m_buffer[b], static_cast<const char*>(src) + off, n);
    IE_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + off, m_buffer[b], n, cudaMemcpyHostToDevice, m_stream));
    IE_CUDA_CHECK(cudaEventRecord(m_done[b], m_stream));
  }
}

void PinnedStager::to_host(void* dst, const void* src, size_t bytes) {
  if (!bytes) return;
  if (is_pinned(dst)) {
    IE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, m_stream));
    IE_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    return;
  }
  ensure_buffers();
  const size_t chunks = (bytes + m_chunk - 1) / m_chunk;
  auto issue = [&](size_t k) {
    const size_t off = k * m_chunk, n = std::min(m_chunk, bytes - off);
    const int b = static_cast<int>(k % 2);
    IE_CUDA_CHECK(cudaMemcpyAsync(m_buffer[b], static_cast<const char*>(src) + off, n, cudaMemcpyDeviceToHost, m_stream));
    IE_CUDA_CHECK(cudaEventRecord(m_done[b], m_stream));
  };
  issue(0);
  for (size_t k = 0; k < chunks; ++k) {
    if (k + 1 < chunks) issue(k + 1);  // its buffer was emptied by the host copy of chunk k-1
    const int b = static_cast<int>(k % 2);
    IE_CUDA_CHECK(cudaEventSynchronize(m_done[b]));
    const size_t off = k * m_chunk, n = std::min(m_chunk, bytes - off);
    parallel_copy(static_cast<char*>(dst) + off, m_buffer[b], n);
  }
}

}  // namespace ie::cuda
