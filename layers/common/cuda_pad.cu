// Spatial padding of [planes, h, w] into a larger frame. One thread writes one output element of a row, with
// consecutive threads on consecutive columns so the stores coalesce; reads are coalesced in the same way
// (shifted by `left`). Grid: x over the columns of a row, y over planes*rows (grid-stride).
#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_state.h"
#include "layers/common/cuda_pad.h"

namespace ie::cuda {
namespace {

template <class T>
__global__ void pad_planes_kernel(const T* __restrict__ src, T* __restrict__ dst, PadPlanes g, T fill) {
  const int64_t rows = g.planes * g.out_h;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const int64_t plane = row / g.out_h, y = row % g.out_h - g.top;
    const bool row_in = y >= 0 && y < g.in_h;
    const T* s = src + (plane * g.in_h + (row_in ? y : 0)) * g.in_w;
    T* d = dst + row * g.out_w;
    for (int64_t col = blockIdx.x * blockDim.x + threadIdx.x; col < g.out_w; col += gridDim.x * blockDim.x) {
      const int64_t x = col - g.left;
      d[col] = row_in && x >= 0 && x < g.in_w ? s[x] : fill;
    }
  }
}

}  // namespace

void pad_planes(const float* src, float* dst, const PadPlanes& geo, float fill, void* stream) {
  constexpr int kThreads = 128;
  const int64_t rows = geo.planes * geo.out_h;
  dim3 grid(static_cast<unsigned>((geo.out_w + kThreads - 1) / kThreads),
            static_cast<unsigned>(rows < 65535 ? rows : 65535));
  if (rows == 0 || geo.out_w == 0) return;
  pad_planes_kernel<float><<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(src, dst, geo, fill);
  IE_CUDA_CHECK_LAUNCH();
}

}  // namespace ie::cuda
