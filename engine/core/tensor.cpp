// Tensor: allocation, views, shape text.
#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/shape.h"

namespace ie {

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  return a.nbytes() == 0 || std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
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
