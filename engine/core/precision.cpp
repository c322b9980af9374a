// Names of the precision modes and their storage types.
#include "engine/core/precision.h"

#include "engine/core/error.h"

namespace ie {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
  }
  return "unknown";
}

std::vector<Precision> all_precisions() { return {Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16}; }

Precision precision_from_name(const std::string& name) {
  for (Precision p : all_precisions())
    if (name == precision_name(p)) return p;
  fail(ErrorKind::Usage, "unknown precision '", name, "' (expected fp32, tf32, fp16 or bf16)");
}

DType storage_dtype(Precision p) {
  switch (p) {
    case Precision::fp16:
      return DType::Float16;
    case Precision::bf16:
      return DType::BFloat16;
    default:
      return DType::Float32;
  }
}

}  // namespace ie
