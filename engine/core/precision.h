// Precision modes: how a backend computes and in which type activations and weights are stored between steps
// (public through engine/api/engine.h). Accumulation is fp32 in every mode.
//
//   ie::Options o;  o.precision = ie::precision_from_name("bf16");
//   ie::storage_dtype(o.precision);   // DType::BFloat16
#pragma once

#include <string>
#include <vector>

#include "engine/core/dtype.h"

namespace ie {

enum class Precision {
  fp32,  // strict fp32: FFMA, no TF32
  tf32,  // fp32 storage, Tensor Core products on TF32-rounded operands
  fp16,  // fp16 storage and Tensor Core operands
  bf16,  // bf16 storage and Tensor Core operands
};

/// "fp32", "tf32", "fp16", "bf16".
const char* precision_name(Precision p);
/// Parses a name as printed by precision_name; throws Error(Usage) listing the names otherwise.
Precision precision_from_name(const std::string& name);
/// Every mode, in the order above.
std::vector<Precision> all_precisions();
/// The element type activations and weights are stored in between steps: Float16, BFloat16, else Float32.
DType storage_dtype(Precision p);

}  // namespace ie
