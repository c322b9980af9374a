// float16 and bfloat16 tensors are computed in float: these helpers convert inputs to the compute type and results back.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <type_traits>
#include <vector>

#include "engine/core/dtype_dispatch.h"
#include "engine/registry/op_def.h"

namespace ie {

/// Host buffers of compute values that Eigen's products read or write, aligned to its packets: a product peels
/// unaligned leading elements into a scalar loop, so a buffer whose heap alignment changed from run to run could
/// change the rounding of a few outputs (seen in the im2col convolution: the same plan gave other bits on its first
/// run than on later ones).
template <class C>
using ComputeBuffer = std::vector<C, Eigen::aligned_allocator<C>>;

/// Reads any float tensor as C values: returns its own pointer when it already holds C, else converts into `store`.
template <class C>
const C* as_compute(const TensorRef& t, ComputeBuffer<C>& store) {
  if (t.dtype == dtype_of<C>()) return t.as<const C>();
  int64_t n = t.numel();
  store.resize(static_cast<size_t>(n));
  dispatch_float(t.dtype, "as_compute", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = t.as<const T>();
    for (int64_t i = 0; i < n; ++i) store[i] = static_cast<C>(static_cast<float>(src[i]));
  });
  return store.data();
}

/// Same for a host Tensor (constant weights packed at plan time): always copies into a buffer of C.
template <class C>
ComputeBuffer<C> to_compute(const Tensor& t) {
  ComputeBuffer<C> out;
  TensorRef ref{const_cast<void*>(t.data()), t.dtype(), t.shape()};
  const C* p = as_compute(ref, out);
  if (out.empty()) out.assign(p, p + t.numel());
  return out;
}

/// A float input that is often a constant weight: packed into C once at plan time when constant, else read (and
/// converted if needed) on each run. Absent optional inputs give nullptr.
template <class C>
class WeightInput {
 public:
  WeightInput(const KernelInit& init, size_t i) : m_index(i) {
    m_present = i < init.inputs.size() && init.inputs[i].dtype != DType::Undefined;
    if (m_present && i < init.constants.size() && init.constants[i])
      m_packed = std::make_shared<ComputeBuffer<C>>(to_compute<C>(*init.constants[i]));
  }
  bool present() const { return m_present; }
  /// The packed constant, or nullptr when the input is absent or not constant.
  const C* constant() const { return m_packed ? m_packed->data() : nullptr; }
  const C* get(const KernelContext& ctx, ComputeBuffer<C>& scratch) const {
    if (!m_present) return nullptr;
    if (m_packed) return m_packed->data();
    return as_compute<C>(ctx.inputs[m_index], scratch);
  }

 private:
  size_t m_index;
  bool m_present = false;
  std::shared_ptr<ComputeBuffer<C>> m_packed;  // shared: kernels are copied into their lambda
};

/// Output buffer in the compute type: the tensor itself when it holds C, else a scratch vector; commit() converts.
template <class C>
class ComputeOut {
 public:
  explicit ComputeOut(const TensorRef& t) : m_ref(t) {
    if (t.dtype != dtype_of<C>()) m_store.resize(static_cast<size_t>(t.numel()));
  }
  C* data() { return m_store.empty() ? m_ref.as<C>() : m_store.data(); }
  void commit() {
    if (m_store.empty()) return;
    dispatch_float(m_ref.dtype, "ComputeOut", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* dst = m_ref.as<T>();
      for (size_t i = 0; i < m_store.size(); ++i) dst[i] = static_cast<T>(m_store[i]);
    });
  }

 private:
  TensorRef m_ref;
  ComputeBuffer<C> m_store;
};

}  // namespace ie
