#include "engine/loader/tensor_proto.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/core/checked_math.h"
#include "engine/core/dtype_dispatch.h"
#include "engine/core/error.h"
#include "engine/core/shape.h"
#include "engine/io/file_util.h"

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

// An external-data offset or length: a decimal integer >= 0 that fits in 64 bits, else an error naming the key.
int64_t parse_external_number(const std::string& key, const std::string& text, const std::string& what) {
  int64_t v = 0;
  bool ok = !text.empty();
  for (char c : text) {
    ok = ok && c >= '0' && c <= '9' && !__builtin_mul_overflow(v, 10, &v) && !__builtin_add_overflow(v, c - '0', &v);
    if (!ok) break;
  }
  if (!ok)
    fail_input(what, ": external data '", key, "' is \"", text, "\", expected a whole number of bytes from 0 to ",
               INT64_MAX);
  return v;
}

// Where an external tensor's bytes lie; checked against the file before anything is allocated for them.
struct ExternalRange {
  std::string file;
  int64_t offset = 0;
  int64_t length = 0;
};

// Resolves [offset, offset+length) of an external-data file that must lie inside the model's folder.
ExternalRange locate_external(const onnx::TensorProto& proto, const std::string& model_dir, const std::string& what,
                              size_t expected) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (auto& kv : proto.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = parse_external_number(kv.key(), kv.value(), what);
    else if (kv.key() == "length") length = parse_external_number(kv.key(), kv.value(), what);
  }
  if (location.empty()) fail_input(what, ": external data without a 'location'");
  fs::path rel(location);
  if (rel.is_absolute()) fail_input(what, ": external data location '", location, "' must be relative to the model's folder");
  fs::path base = fs::weakly_canonical(fs::path(model_dir.empty() ? "." : model_dir));
  fs::path full = fs::weakly_canonical(base / rel);
  auto [b, f] = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
  if (b != base.end())
    fail_input(what, ": external data location '", location, "' escapes the model's folder ", base.string());
  std::error_code ec;
  if (!fs::exists(full, ec)) fail_input(what, ": external data file '", full.string(), "' cannot be opened");
  try {
    check_regular_file(full.string());
  } catch (const Error& e) {
    fail_input(what, ": external data file ", e.what());
  }
  const int64_t file_size = static_cast<int64_t>(fs::file_size(full, ec));
  if (ec) fail_input(what, ": external data file '", full.string(), "' cannot be opened: ", ec.message());
  if (length < 0) length = static_cast<int64_t>(expected);
  if (static_cast<size_t>(length) != expected)
    fail_input(what, ": external data length ", length, " does not match the tensor's ", expected, " bytes");
  if (offset > file_size || length > file_size - offset)
    fail_input(what, ": external data range [", offset, ", ", offset + length, ") lies outside '", full.string(),
               "' (", file_size, " bytes)");
  return ExternalRange{full.string(), offset, length};
}

void read_external(const ExternalRange& r, const std::string& what, void* dst) {
  std::ifstream in(r.file, std::ios::binary);
  if (!in) fail_input(what, ": external data file '", r.file, "' cannot be opened");
  in.seekg(r.offset);
  in.read(static_cast<char*>(dst), r.length);
  if (!in) fail_input(what, ": reading external data from '", r.file, "' failed");
}

// Calls fn(field, field_name, TypeTag<Stored>{}) with the repeated field that holds `dtype`'s values in a
// TensorProto without raw_data; Stored is the C++ type each value is stored as (the 16-bit floats as their bits).
template <class Fn>
void visit_typed_field(const onnx::TensorProto& proto, DType dtype, const std::string& what, Fn&& fn) {
  switch (dtype) {
    case DType::Float32: return fn(proto.float_data(), "float_data", TypeTag<float>{});
    case DType::Float64: return fn(proto.double_data(), "double_data", TypeTag<double>{});
    case DType::Int64: return fn(proto.int64_data(), "int64_data", TypeTag<int64_t>{});
    case DType::UInt64: return fn(proto.uint64_data(), "uint64_data", TypeTag<uint64_t>{});
    case DType::UInt32: return fn(proto.uint64_data(), "uint64_data", TypeTag<uint32_t>{});
    case DType::Int32: return fn(proto.int32_data(), "int32_data", TypeTag<int32_t>{});
    case DType::Int16: return fn(proto.int32_data(), "int32_data", TypeTag<int16_t>{});
    case DType::UInt16: case DType::Float16: case DType::BFloat16:
      return fn(proto.int32_data(), "int32_data", TypeTag<uint16_t>{});
    case DType::Int8: return fn(proto.int32_data(), "int32_data", TypeTag<int8_t>{});
    case DType::UInt8: return fn(proto.int32_data(), "int32_data", TypeTag<uint8_t>{});
    case DType::Bool: return fn(proto.int32_data(), "int32_data", TypeTag<bool>{});
    default: fail_unsupported(what, ": element type ", dtype_name(dtype), " is not supported");
  }
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir, const std::string& what) {
  if (proto.has_segment()) fail_unsupported(what, ": segmented tensors are not supported");
  DType dtype = checked_dtype(proto.data_type(), what);
  Shape shape(proto.dims().begin(), proto.dims().end());
  // Every size the file claims is checked against the bytes it actually holds before the tensor is allocated:
  // a few bytes of protobuf must not make the loader reserve gigabytes.
  const size_t bytes = checked_bytes(shape, dtype, what);
  const int64_t n = checked_numel(shape, what);
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    ExternalRange range = locate_external(proto, model_dir, what, bytes);
    Tensor t(dtype, shape);
    read_external(range, what, t.data());
    return t;
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != bytes)
      fail_input(what, ": raw_data holds ", proto.raw_data().size(), " bytes, shape ", shape_to_string(shape), " of ",
                 dtype_name(dtype), " needs ", bytes);
    Tensor t(dtype, shape);
    if (bytes) std::memcpy(t.data(), proto.raw_data().data(), bytes);
    return t;
  }
  if (n == 0) return Tensor(dtype, shape);
  Tensor t;
  visit_typed_field(proto, dtype, what, [&](const auto& field, const char* field_name, auto tag) {
    using Stored = typename decltype(tag)::type;
    if (static_cast<int64_t>(field.size()) != n)
      fail_input(what, ": ", field_name, " holds ", field.size(), " values, the shape needs ", n);
    t = Tensor(dtype, shape);
    Stored* dst = t.data_as<Stored>();
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Stored>(field.Get(static_cast<int>(i)));
  });
  return t;
}

}  // namespace ie
