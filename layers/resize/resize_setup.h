// Resize's attributes and inputs resolved at plan time, and the interpolation taps of each output position:
// shared by the CPU and CUDA kernels so both sample exactly the same points with the same weights.
#pragma once

#include <string>
#include <vector>

#include "engine/registry/op_def.h"

namespace ie {

enum class ResizeMode { Nearest, Linear, Cubic };

struct ResizeSetup {
  ResizeMode mode = ResizeMode::Nearest;
  std::string transform = "half_pixel", nearest_mode = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0;
  Shape in, out;
  std::vector<double> scales, roi;  // per dim; roi is [starts..., ends...] (tf_crop_and_resize only)
};

/// Interpolation taps of one output position along one axis.
struct Taps {
  int64_t index[4];
  double weight[4];
  int count = 0;
  bool extrapolate = false;  // outside the crop box: the output is the extrapolation value
};

/// Reads mode, coordinate transform, scales or sizes (constant inputs) and roi; fails naming the node on
/// anything unsupported or inconsistent. `in` replaces X's shape when given (ie.ScaledResize: X seen through a
/// reshape such as an Unsqueeze).
ResizeSetup resolve_resize(const InferContext& ctx, const Shape* in = nullptr);

/// The taps of output position y along dim d.
Taps taps_of(const ResizeSetup& s, size_t d, int64_t y);

/// Per dim: the taps of every output position, or an empty list when the dim is left unchanged.
std::vector<std::vector<Taps>> axis_taps(const ResizeSetup& s);

/// A resize that changes at most the last two dims, as a 2-D resize of `planes` planes: [in_h, in_w] ->
/// [out_h, out_w], with each output row's and column's taps (identity taps where that dim is unchanged).
struct ResizePlanes {
  int64_t planes = 1, in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  std::vector<Taps> rows, cols;
};
/// False when a dim before the last two changes (a leading axis whose taps read each index back with weight 1,
/// e.g. a length-1 axis under pytorch_half_pixel, counts as unchanged).
bool resize_as_planes(const ResizeSetup& s, ResizePlanes* planes);

/// ie.ScaledResize: Resize(view(Cast(X, to) (* or /) factor)) with X an 8- or 16-bit integer tensor, the pattern of
/// an image model's pre-processing, as one node (rule scaled_resize). Attributes: Resize's, plus `to` (the output's
/// float type), `input_factor` and `input_divide` (0: times the factor, 1: divided by it) and, when a reshape such
/// as an Unsqueeze sat before the Resize, `input_shape` (the shape the resize sees; X's element count). Inputs as
/// Resize's: X, roi, scales, sizes.
struct ScaledInput {
  bool integer = false;  // false: X is a float tensor, read as it is
  float factor = 1.f;
  bool divide = false;
};
/// True for the integer types X may have (uint8, int8, uint16, int16).
bool scaled_resize_input(DType dtype);
/// The output's element type (attribute `to`).
DType scaled_resize_output(const Node& node);
/// The shape the resize sees: `input_shape` when given (its element count must be X's), else X's.
Shape scaled_resize_input_shape(const InferContext& ctx);
/// The node's scaling of X.
ScaledInput scaled_input_of(const Node& node);

}  // namespace ie
