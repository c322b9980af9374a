// Host <-> device copies of pageable memory through two pinned chunks, so that the host copy of one chunk overlaps
// the DMA of the other (double buffering); the host copies run on every worker thread (parallel_copy), and a chunk
// of 32 MB gives each of 16 threads its own 2 MB page of a fresh destination to fault in. Pinned (page-locked)
// host memory is copied directly.
#pragma once

#include <cstddef>

#include "engine/backend/cuda/cuda_check.h"

namespace ie::cuda {

class PinnedStager {
 public:
  explicit PinnedStager(cudaStream_t stream, size_t chunk_bytes = size_t(32) << 20);
  ~PinnedStager();
  PinnedStager(const PinnedStager&) = delete;
  PinnedStager& operator=(const PinnedStager&) = delete;

  /// Issues the copy on the stream; returns once `src` may be reused (the DMA may still be in flight).
  void to_device(void* dst, const void* src, size_t bytes);
  /// Copies and waits: `dst` holds the data on return.
  void to_host(void* dst, const void* src, size_t bytes);
  /// Whether `p` lies in page-locked host memory (copied by DMA directly, without staging).
  static bool is_pinned(const void* p);

 private:
  void ensure_buffers();

  cudaStream_t m_stream;
  size_t m_chunk;
  void* m_buffer[2] = {nullptr, nullptr};
  cudaEvent_t m_done[2] = {nullptr, nullptr};  // last DMA that used each buffer
};

}  // namespace ie::cuda
