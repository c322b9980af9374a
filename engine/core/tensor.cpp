// Tensor: allocation, views, shape text.
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/core/parallel_copy.h"
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

// Large buffers (a batch's outputs: tens to hundreds of MB) sit on 2 MB pages where the kernel allows, and are
// zeroed by all worker threads: first-touch page faults on one core otherwise cap the fill at a few GB/s.
constexpr size_t kLargeBuffer = size_t(8) << 20;
constexpr size_t kHugePage = size_t(2) << 20;

std::shared_ptr<void> allocate_host(size_t bytes, bool zeroed) {
  // 64-byte alignment suits SIMD loads; at least one byte so that empty tensors still own a buffer.
  const size_t align = bytes >= kLargeBuffer ? kHugePage : 64;
  const size_t rounded = bytes == 0 ? align : (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (!p) fail_input("cannot allocate ", bytes, " bytes for a tensor");
#ifdef MADV_HUGEPAGE
  if (align == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: ignored where THP is off
#endif
  if (zeroed) {
    auto* c = static_cast<char*>(p);
    parallel_for(static_cast<int64_t>(rounded), static_cast<int64_t>(kHugePage),
                 [&](int64_t b, int64_t e) { std::memset(c + b, 0, static_cast<size_t>(e - b)); });
  }
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

size_t checked_bytes(const std::vector<int64_t>& shape, DType dtype) {
  int64_t n = checked_numel(shape, "tensor");
  size_t elem = dtype_size(dtype);
  if (elem == 0) fail_input("tensor of element type ", dtype_name(dtype), " is not supported");
  if (n > static_cast<int64_t>(SIZE_MAX / 2 / elem))
    fail_input("tensor of shape ", shape_to_string(shape), " is too large");
  return static_cast<size_t>(n) * elem;
}

}  // namespace

Tensor Tensor::uninitialized(DType dtype, std::vector<int64_t> shape) {
  std::shared_ptr<void> buffer = allocate_host(checked_bytes(shape, dtype), false);
  return Tensor(dtype, std::move(shape), std::move(buffer));
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape) : m_dtype(dtype), m_shape(std::move(shape)) {
  m_buffer = allocate_host(checked_bytes(m_shape, dtype), true);
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
  Tensor t = uninitialized(m_dtype, m_shape);
  parallel_copy(t.data(), data(), nbytes());
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
