// Host conversion between the float element types (float32, float64, float16, bfloat16), rounding to nearest
// even: the planner's one-time weight conversion for fp16/bf16 modes, and readers that widen values.
#pragma once

#include "engine/core/tensor.h"

namespace ie {

/// True for Float32, Float64, Float16 and BFloat16.
bool is_float_dtype(DType dtype);
/// A new tensor holding `t` converted to `to` (both float types; the same type gives a copy). Throws Error(Usage)
/// for non-float types.
Tensor convert_floats(const Tensor& t, DType to);
/// float <-> bfloat16 bits (round to nearest even; NaN stays NaN).
uint16_t float_to_bfloat16_bits(float f);
float bfloat16_bits_to_float(uint16_t bits);

}  // namespace ie
