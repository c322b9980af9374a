// Element types of tensors (part of the public interface through engine/api/engine.h).
#pragma once

#include <cstddef>
#include <string>

namespace ie {

/// Element types; the numbers are ONNX's TensorProto.DataType codes.
enum class DType : int {
  Undefined = 0, Float32 = 1, UInt8 = 2, Int8 = 3, UInt16 = 4, Int16 = 5, Int32 = 6, Int64 = 7,
  String = 8, Bool = 9, Float16 = 10, Float64 = 11, UInt32 = 12, UInt64 = 13, BFloat16 = 16,
};

/// Bytes per element (0 for Undefined and String).
size_t dtype_size(DType dtype);
/// Short lower-case name, e.g. "float32".
const char* dtype_name(DType dtype);
/// Parses a name as printed by dtype_name (also "float", "half", "double", "bf16"); throws Error on an unknown name.
DType dtype_from_name(const std::string& name);

}  // namespace ie
