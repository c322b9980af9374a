// Geometry of sliding-window ops (Conv, pooling): kernel, strides, dilations, pads and output size per spatial dim.
// Problems of 1 or 2 spatial dims are promoted to 3 with leading unit dims, so one loop nest serves 1-D to 3-D.
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/shape.h"
#include "engine/ir/attributes.h"

namespace ie {

constexpr int kMaxSpatial = 3;

struct Window {
  int spatial = 0;  // real number of spatial dims (1..3); the first 3 - spatial entries below are unit dims
  int64_t in[kMaxSpatial] = {1, 1, 1};
  int64_t out[kMaxSpatial] = {1, 1, 1};
  int64_t kernel[kMaxSpatial] = {1, 1, 1};
  int64_t stride[kMaxSpatial] = {1, 1, 1};
  int64_t dilation[kMaxSpatial] = {1, 1, 1};
  int64_t pad_begin[kMaxSpatial] = {0, 0, 0};
  int64_t pad_end[kMaxSpatial] = {0, 0, 0};

  int64_t in_volume() const { return in[0] * in[1] * in[2]; }
  int64_t out_volume() const { return out[0] * out[1] * out[2]; }
  int64_t kernel_volume() const { return kernel[0] * kernel[1] * kernel[2]; }
  /// True when the window is a plain copy (1x1 kernel, unit stride, no padding): im2col can be skipped.
  bool is_pointwise() const;
  /// The real output spatial dims.
  Shape out_shape() const;
};

/// Reads `<prefix>kernel_shape`, strides, dilations, pads, auto_pad and (when allow_ceil) ceil_mode, and resolves
/// the output size for `in_spatial`. `kernel` given (from a weight's shape) must agree with kernel_shape if both
/// exist; empty means kernel_shape is required. Fails naming `where` on bad values.
Window resolve_window(const Attributes& attrs, const std::string& prefix, const Shape& in_spatial, Shape kernel,
                      bool allow_ceil, const std::string& where);

}  // namespace ie
