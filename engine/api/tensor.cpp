#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/shape.h"

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
      {"float", DType::Float32}, {"half", DType::Float16}, {"double", DType::Float64}};
  for (auto& [n, t] : aliases)
    if (name == n) return t;
  for (int code = 1; code <= 16; ++code) {
    auto t = static_cast<DType>(code);
    if (dtype_size(t) != 0 && name == dtype_name(t)) return t;
  }
  fail(ErrorKind::Usage, "unknown dtype '", name, "' (expected float32, float16, float64, uint8, int8, int32, int64, bool)");
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace {
std::shared_ptr<void> allocate_zeroed(size_t bytes) {
  // 64-byte alignment suits SIMD loads; at least one byte so that empty tensors still own a buffer.
  size_t rounded = ((bytes + 63) / 64) * 64;
  void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (!p) fail_input("cannot allocate ", bytes, " bytes for a tensor");
  std::memset(p, 0, rounded == 0 ? 64 : rounded);
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}
}  // namespace

Tensor::Tensor(DType dtype, std::vector<int64_t> shape) : m_dtype(dtype), m_shape(std::move(shape)) {
  int64_t n = checked_numel(m_shape, "tensor");
  size_t elem = dtype_size(dtype);
  if (elem == 0) fail_input("tensor of element type ", dtype_name(dtype), " is not supported");
  if (n > static_cast<int64_t>(SIZE_MAX / 2 / elem)) fail_input("tensor of shape ", shape_to_string(m_shape), " is too large");
  m_buffer = allocate_zeroed(static_cast<size_t>(n) * elem);
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape, std::shared_ptr<void> buffer)
    : m_dtype(dtype), m_shape(std::move(shape)), m_buffer(std::move(buffer)) {
  checked_numel(m_shape, "tensor");
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : m_shape) n *= d;
  return n;
}

Tensor Tensor::clone() const {
  Tensor t(m_dtype, m_shape);
  if (nbytes()) std::memcpy(t.data(), data(), nbytes());
  return t;
}

Tensor Tensor::slice_rows(int64_t begin, int64_t end) const {
  if (m_shape.empty() || begin < 0 || end < begin || end > m_shape[0])
    fail_input("cannot take rows [", begin, ", ", end, ") of a tensor of shape ", shape_to_string(m_shape));
  std::vector<int64_t> shape = m_shape;
  shape[0] = end - begin;
  size_t row_bytes = m_shape[0] ? nbytes() / static_cast<size_t>(m_shape[0]) : 0;
  std::shared_ptr<void> view(m_buffer, static_cast<char*>(m_buffer.get()) + row_bytes * static_cast<size_t>(begin));
  return Tensor(m_dtype, std::move(shape), std::move(view));
}

Tensor Tensor::reshaped(std::vector<int64_t> shape) const {
  if (checked_numel(shape) != numel())
    fail_input("cannot reshape ", shape_to_string(m_shape), " to ", shape_to_string(shape));
  return Tensor(m_dtype, std::move(shape), m_buffer);
}

}  // namespace ie
