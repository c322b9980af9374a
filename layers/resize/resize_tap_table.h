// Device copy of one axis' interpolation taps for the CUDA Resize kernels (reference and fused), freed with the
// kernel. Included from .cu files only: it carries the CUDA-only DevTaps layout.
#pragma once

#include <algorithm>
#include <vector>

#include "engine/backend/cuda/cuda_check.h"
#include "layers/resize/resize_planes.cuh"
#include "layers/resize/resize_setup.h"

namespace ie::cuda {

class TapTable {
 public:
  TapTable(const std::vector<Taps>& taps, cudaStream_t stream) {
    std::vector<rsz::DevTaps> host(taps.size());
    for (size_t y = 0; y < taps.size(); ++y) {
      const Taps& t = taps[y];
      rsz::DevTaps& d = host[y];
      d = rsz::DevTaps{{0, 0, 0, 0}, {0.f, 0.f, 0.f, 0.f}, t.extrapolate ? -1 : t.count};
      for (int k = 0; k < t.count; ++k) {
        d.index[k] = static_cast<int32_t>(t.index[k]);
        d.weight[k] = static_cast<float>(t.weight[k]);
      }
    }
    const size_t bytes = std::max<size_t>(1, host.size()) * sizeof(rsz::DevTaps);
    IE_CUDA_CHECK(cudaMalloc(&m_data, bytes));
    if (!host.empty()) {
      IE_CUDA_CHECK(
          cudaMemcpyAsync(m_data, host.data(), host.size() * sizeof(rsz::DevTaps), cudaMemcpyHostToDevice, stream));
      IE_CUDA_CHECK(cudaStreamSynchronize(stream));  // plan time: `host` goes away after this
    }
  }
  ~TapTable() { cudaFree(m_data); }
  TapTable(const TapTable&) = delete;
  TapTable& operator=(const TapTable&) = delete;
  const rsz::DevTaps* data() const { return m_data; }

 private:
  rsz::DevTaps* m_data = nullptr;
};

}  // namespace ie::cuda
