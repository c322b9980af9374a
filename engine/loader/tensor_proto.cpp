#include "engine/loader/tensor_proto.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "engine/core/shape.h"

namespace ie {

namespace fs = std::filesystem;

namespace {

DType checked_dtype(int code, const std::string& what) {
  auto t = static_cast<DType>(code);
  switch (t) {
    case DType::Float32: case DType::Float64: case DType::Float16: case DType::BFloat16: case DType::Int8:
    case DType::UInt8: case DType::Int16: case DType::UInt16: case DType::Int32: case DType::UInt32: case DType::Int64:
    case DType::UInt64: case DType::Bool:
      return t;
    default:
      fail_unsupported(what, ": element type ", dtype_name(t), " (ONNX code ", code, ") is not supported");
  }
}

// Reads [offset, offset+length) of an external-data file that must lie inside the model's folder.
void read_external(const onnx::TensorProto& proto, const std::string& model_dir, const std::string& what,
                   void* dst, size_t expected) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (auto& kv : proto.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = std::stoll(kv.value());
    else if (kv.key() == "length") length = std::stoll(kv.value());
  }
  if (location.empty()) fail_input(what, ": external data without a 'location'");
  fs::path rel(location);
  if (rel.is_absolute()) fail_input(what, ": external data location '", location, "' must be relative to the model's folder");
  fs::path base = fs::weakly_canonical(fs::path(model_dir.empty() ? "." : model_dir));
  fs::path full = fs::weakly_canonical(base / rel);
  auto [b, f] = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
  if (b != base.end())
    fail_input(what, ": external data location '", location, "' escapes the model's folder ", base.string());
  std::ifstream in(full, std::ios::binary);
  if (!in) fail_input(what, ": external data file '", full.string(), "' cannot be opened");
  in.seekg(0, std::ios::end);
  int64_t file_size = in.tellg();
  if (length < 0) length = static_cast<int64_t>(expected);
  if (static_cast<size_t>(length) != expected)
    fail_input(what, ": external data length ", length, " does not match the tensor's ", expected, " bytes");
  if (offset < 0 || offset > file_size || length > file_size - offset)
    fail_input(what, ": external data range [", offset, ", ", offset + length, ") lies outside '", full.string(),
               "' (", file_size, " bytes)");
  in.seekg(offset);
  in.read(static_cast<char*>(dst), length);
  if (!in) fail_input(what, ": reading external data from '", full.string(), "' failed");
}

template <class Src, class Dst>
void copy_field(const Src& field, Dst* dst, int64_t n, const std::string& what, const char* field_name) {
  if (static_cast<int64_t>(field.size()) != n)
    fail_input(what, ": ", field_name, " holds ", field.size(), " values, the shape needs ", n);
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Dst>(field.Get(static_cast<int>(i)));
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir, const std::string& what) {
  if (proto.has_segment()) fail_unsupported(what, ": segmented tensors are not supported");
  DType dtype = checked_dtype(proto.data_type(), what);
  Shape shape(proto.dims().begin(), proto.dims().end());
  checked_numel(shape, what);
  Tensor t(dtype, shape);
  int64_t n = t.numel();
  size_t bytes = t.nbytes();
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    read_external(proto, model_dir, what, t.data(), bytes);
    return t;
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != bytes)
      fail_input(what, ": raw_data holds ", proto.raw_data().size(), " bytes, shape ", shape_to_string(shape), " of ",
                 dtype_name(dtype), " needs ", bytes);
    if (bytes) std::memcpy(t.data(), proto.raw_data().data(), bytes);
    return t;
  }
  if (n == 0) return t;
  switch (dtype) {
    case DType::Float32: copy_field(proto.float_data(), t.data_as<float>(), n, what, "float_data"); break;
    case DType::Float64: copy_field(proto.double_data(), t.data_as<double>(), n, what, "double_data"); break;
    case DType::Int64: copy_field(proto.int64_data(), t.data_as<int64_t>(), n, what, "int64_data"); break;
    case DType::UInt64: copy_field(proto.uint64_data(), t.data_as<uint64_t>(), n, what, "uint64_data"); break;
    case DType::UInt32: copy_field(proto.uint64_data(), t.data_as<uint32_t>(), n, what, "uint64_data"); break;
    case DType::Int32: copy_field(proto.int32_data(), t.data_as<int32_t>(), n, what, "int32_data"); break;
    case DType::Int16: copy_field(proto.int32_data(), t.data_as<int16_t>(), n, what, "int32_data"); break;
    case DType::UInt16: copy_field(proto.int32_data(), t.data_as<uint16_t>(), n, what, "int32_data"); break;
    case DType::Float16: copy_field(proto.int32_data(), t.data_as<uint16_t>(), n, what, "int32_data"); break;  // bits
    case DType::BFloat16: copy_field(proto.int32_data(), t.data_as<uint16_t>(), n, what, "int32_data"); break;
    case DType::Int8: copy_field(proto.int32_data(), t.data_as<int8_t>(), n, what, "int32_data"); break;
    case DType::UInt8: copy_field(proto.int32_data(), t.data_as<uint8_t>(), n, what, "int32_data"); break;
    case DType::Bool: copy_field(proto.int32_data(), t.data_as<bool>(), n, what, "int32_data"); break;
    default: fail_unsupported(what, ": element type ", dtype_name(dtype), " is not supported");
  }
  return t;
}

}  // namespace ie
