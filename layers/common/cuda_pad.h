// Explicit spatial padding on the GPU, for cuDNN calls whose padding must be asymmetric or extend a ceil-mode
// window: cuDNN pads both sides of a dim by the same amount.
#pragma once

#include <cstdint>

namespace ie::cuda {

/// Geometry of padding `planes` planes of [in_h, in_w] into [out_h, out_w], the input placed at (top, left).
struct PadPlanes {
  int64_t planes = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0, top = 0, left = 0;
  int64_t in_elems() const { return planes * in_h * in_w; }
  int64_t out_elems() const { return planes * out_h * out_w; }
};

/// dst = src placed into a frame filled with `fill`, on `stream` (a cudaStream_t).
void pad_planes(const float* src, float* dst, const PadPlanes& geo, float fill, void* stream);

}  // namespace ie::cuda
