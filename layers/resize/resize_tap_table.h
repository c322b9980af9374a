// Device copy of one axis' interpolation taps for the CUDA Resize kernels (reference and fused), freed with the
// kernel; on request also as pairs (rsz::PairTaps) where every tap reads at most two positions. Included from .cu
// files only: it carries the CUDA-only DevTaps layout.
#pragma once

#include <algorithm>
#include <vector>

#include "engine/backend/cuda/cuda_check.h"
#include "layers/resize/resize_planes.cuh"
#include "layers/resize/resize_setup.h"

namespace ie::cuda {

class TapTable {
 public:
  TapTable(const std::vector<Taps>& taps, cudaStream_t stream, bool with_pairs = false) {
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
    std::vector<rsz::PairTaps> pairs(host.size());
    if (with_pairs && !host.empty() && rsz::pair_taps(host.data(), static_cast<int>(host.size()), pairs.data())) {
      IE_CUDA_CHECK(cudaMalloc(&m_pairs, pairs.size() * sizeof(rsz::PairTaps)));
      IE_CUDA_CHECK(cudaMemcpyAsync(m_pairs, pairs.data(), pairs.size() * sizeof(rsz::PairTaps),
                                    cudaMemcpyHostToDevice, stream));
    }
    if (!host.empty()) {
      IE_CUDA_CHECK(
          cudaMemcpyAsync(m_data, host.data(), host.size() * sizeof(rsz::DevTaps), cudaMemcpyHostToDevice, stream));
      IE_CUDA_CHECK(cudaStreamSynchronize(stream));  // plan time: `host` and `pairs` go away after this
    }
  }
  ~TapTable() {
    cudaFree(m_data);
    cudaFree(m_pairs);
  }
  TapTable(const TapTable&) = delete;
  TapTable& operator=(const TapTable&) = delete;
  const rsz::DevTaps* data() const { return m_data; }
  /// The taps as pairs, or null when one reads more than two positions (or pairs were not asked for).
  const rsz::PairTaps* pairs() const { return m_pairs; }

 private:
  rsz::DevTaps* m_data = nullptr;
  rsz::PairTaps* m_pairs = nullptr;
};

}  // namespace ie::cuda
