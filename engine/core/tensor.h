// A dense host tensor (public through engine/api/engine.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/dtype.h"

namespace ie {

/// A dense, C-ordered host tensor. Copies share the buffer (like a shared_ptr); use clone() for a deep copy.
class Tensor {
 public:
  Tensor() = default;
  /// Allocates a zero-filled buffer; throws Error(BadInput) when the element count overflows.
  Tensor(DType dtype, std::vector<int64_t> shape);
  /// A tensor whose contents are undefined until written: for buffers about to be overwritten whole (a copy's
  /// destination), which then skip the zero fill.
  static Tensor uninitialized(DType dtype, std::vector<int64_t> shape);
  /// Wraps an existing buffer of at least numel * dtype_size bytes; the shared_ptr keeps it alive.
  Tensor(DType dtype, std::vector<int64_t> shape, std::shared_ptr<void> buffer);

  DType dtype() const { return m_dtype; }
  const std::vector<int64_t>& shape() const { return m_shape; }
  int64_t dim(size_t i) const { return m_shape.at(i); }
  size_t rank() const { return m_shape.size(); }
  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(m_dtype); }
  bool empty() const { return !m_buffer; }

  void* data() { return m_buffer.get(); }
  const void* data() const { return m_buffer.get(); }
  template <class T> T* data_as() { return static_cast<T*>(data()); }
  template <class T> const T* data_as() const { return static_cast<const T*>(data()); }

  Tensor clone() const;
  /// Same buffer, another shape with the same element count.
  Tensor reshaped(std::vector<int64_t> shape) const;
  /// Rows [begin, end) of the first dimension, sharing this tensor's buffer (no copy).
  Tensor slice_rows(int64_t begin, int64_t end) const;

 private:
  DType m_dtype = DType::Undefined;
  std::vector<int64_t> m_shape;
  std::shared_ptr<void> m_buffer;
};

/// Same dtype, same shape and the same bytes (NaNs with equal bits are equal): for determinism checks.
bool bitwise_equal(const Tensor& a, const Tensor& b);

/// "[2,3,4]"
std::string shape_to_string(const std::vector<int64_t>& shape);

}  // namespace ie
