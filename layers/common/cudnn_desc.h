// Owning wrappers for cuDNN descriptors, so kernels build them once at plan time and destroy them safely.
// Only CUDA sources include this header.
#pragma once

#include <utility>

#include "engine/backend/cuda/cuda_check.h"

namespace ie::cuda {

/// One cuDNN descriptor type: created on construction, destroyed on destruction, movable, not copyable.
/// kCreate, kDestroy: the CudnnApi entries that make and free it.
template <class T, auto kCreate, auto kDestroy>
class CudnnDesc {
 public:
  CudnnDesc() { IE_CUDA_CHECK((dnn_api().*kCreate)(&m_desc)); }
  ~CudnnDesc() {
    if (m_desc) (dnn_api().*kDestroy)(m_desc);
  }
  CudnnDesc(CudnnDesc&& o) noexcept : m_desc(std::exchange(o.m_desc, nullptr)) {}
  CudnnDesc& operator=(CudnnDesc&& o) noexcept {
    std::swap(m_desc, o.m_desc);
    return *this;
  }
  CudnnDesc(const CudnnDesc&) = delete;
  CudnnDesc& operator=(const CudnnDesc&) = delete;
  T get() const { return m_desc; }

 private:
  T m_desc = nullptr;
};

using TensorDesc =
    CudnnDesc<cudnnTensorDescriptor_t, &CudnnApi::cudnnCreateTensorDescriptor, &CudnnApi::cudnnDestroyTensorDescriptor>;
using FilterDesc =
    CudnnDesc<cudnnFilterDescriptor_t, &CudnnApi::cudnnCreateFilterDescriptor, &CudnnApi::cudnnDestroyFilterDescriptor>;
using ConvDesc = CudnnDesc<cudnnConvolutionDescriptor_t, &CudnnApi::cudnnCreateConvolutionDescriptor,
                           &CudnnApi::cudnnDestroyConvolutionDescriptor>;
using PoolDesc = CudnnDesc<cudnnPoolingDescriptor_t, &CudnnApi::cudnnCreatePoolingDescriptor,
                           &CudnnApi::cudnnDestroyPoolingDescriptor>;
using ActivationDesc = CudnnDesc<cudnnActivationDescriptor_t, &CudnnApi::cudnnCreateActivationDescriptor,
                                 &CudnnApi::cudnnDestroyActivationDescriptor>;

/// A packed NCHW float tensor descriptor.
inline TensorDesc nchw_desc(int64_t n, int64_t c, int64_t h, int64_t w) {
  TensorDesc d;
  IE_CUDA_CHECK(dnn_api().cudnnSetTensor4dDescriptor(d.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, static_cast<int>(n),
                                                     static_cast<int>(c), static_cast<int>(h), static_cast<int>(w)));
  return d;
}

/// True when every value fits cuDNN's int dimensions.
inline bool fits_int(std::initializer_list<int64_t> values) {
  for (int64_t v : values)
    if (v < 0 || v > 0x7fffffff) return false;
  return true;
}

}  // namespace ie::cuda
