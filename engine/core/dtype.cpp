// Names and sizes of the element types.
#include "engine/core/dtype.h"

#include <utility>

#include "engine/core/error.h"

namespace ie {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::Float32: case DType::Int32: case DType::UInt32: return 4;
    case DType::Float64: case DType::Int64: case DType::UInt64: return 8;
    case DType::Float16: case DType::BFloat16: case DType::Int16: case DType::UInt16: return 2;
    case DType::Int8: case DType::UInt8: case DType::Bool: return 1;
    default: return 0;
  }
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Int8: return "int8";
    case DType::UInt8: return "uint8";
    case DType::Int16: return "int16";
    case DType::UInt16: return "uint16";
    case DType::Int32: return "int32";
    case DType::UInt32: return "uint32";
    case DType::Int64: return "int64";
    case DType::UInt64: return "uint64";
    case DType::Bool: return "bool";
    case DType::String: return "string";
    default: return "undefined";
  }
}

DType dtype_from_name(const std::string& name) {
  static const std::pair<const char*, DType> aliases[] = {
      {"float", DType::Float32}, {"half", DType::Float16}, {"double", DType::Float64}, {"bf16", DType::BFloat16}};
  for (auto& [n, t] : aliases)
    if (name == n) return t;
  for (int code = 1; code <= 16; ++code) {
    auto t = static_cast<DType>(code);
    if (dtype_size(t) != 0 && name == dtype_name(t)) return t;
  }
  fail(ErrorKind::Usage, "unknown dtype '", name, "' (expected float32, float16, bfloat16, float64, uint8, int8, int32, int64, bool)");
}

}  // namespace ie
