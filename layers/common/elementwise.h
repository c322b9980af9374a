// Shared pieces of the elementwise kernels: the type each element is computed in, the element-type classes the
// ONNX op schemas allow, and the parallel map used by unary ops.
#pragma once

#include <cstdint>
#include <type_traits>

#include "engine/core/dtype_dispatch.h"
#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"

namespace ie {

/// Elements per parallel chunk of a memory-bound elementwise loop.
constexpr int64_t kElementwiseGrain = 1 << 15;

/// Arithmetic on float16 and bfloat16 happens in float and is rounded back on store.
template <class T>
using compute_t = ComputeOf<T>;

/// Element types an op accepts, following the ONNX schema's type constraints.
enum class TypeClass {
  Float,     // float16, float32, float64
  Signed,    // floats and signed integers
  Numeric,   // floats and all integers
  Integer,   // integers only
  Unsigned,  // unsigned integers only
  Bool,      // bool only
  All,       // every fixed-size type, bool included
};

bool type_in(TypeClass cls, DType t);
const char* type_class_name(TypeClass cls);

/// Fails naming the node and input `i` when its dtype is outside `cls`.
void expect_type(const InferContext& ctx, size_t i, TypeClass cls);
/// Fails naming the node when inputs `i` and `j` have different dtypes.
void expect_same_type(const InferContext& ctx, size_t i, size_t j);

/// Calls fn(TypeTag<T>{}) for dtype t, instantiating only the types of class Cls (the rest fail clearly).
template <TypeClass Cls, class Fn>
decltype(auto) dispatch_class(DType t, const char* where, Fn&& fn) {
  if constexpr (Cls == TypeClass::Float) {
    return dispatch_float(t, where, std::forward<Fn>(fn));
  } else if constexpr (Cls == TypeClass::Bool) {
    if (t != DType::Bool) fail_input(where, ": unsupported element type ", dtype_name(t), " (expected bool)");
    return fn(TypeTag<bool>{});
  } else if constexpr (Cls == TypeClass::All) {
    return dispatch_all(t, where, std::forward<Fn>(fn));
  } else if constexpr (Cls == TypeClass::Integer || Cls == TypeClass::Unsigned) {
    if (!type_in(Cls, t))
      fail_input(where, ": unsupported element type ", dtype_name(t), " (expected ", type_class_name(Cls), ")");
    switch (t) {
      case DType::UInt8:
        return fn(TypeTag<uint8_t>{});
      case DType::UInt16:
        return fn(TypeTag<uint16_t>{});
      case DType::UInt32:
        return fn(TypeTag<uint32_t>{});
      case DType::UInt64:
        return fn(TypeTag<uint64_t>{});
      default:
        break;
    }
    if constexpr (Cls == TypeClass::Integer) {
      switch (t) {
        case DType::Int8:
          return fn(TypeTag<int8_t>{});
        case DType::Int16:
          return fn(TypeTag<int16_t>{});
        case DType::Int32:
          return fn(TypeTag<int32_t>{});
        default:
          return fn(TypeTag<int64_t>{});
      }
    }
    return fn(TypeTag<uint64_t>{});  // not reached: type_in checked the class
  } else {
    if (!type_in(Cls, t))
      fail_input(where, ": unsupported element type ", dtype_name(t), " (expected ", type_class_name(Cls), ")");
    return dispatch_numeric(t, where, std::forward<Fn>(fn));
  }
}

/// out[i] = op(in[i]) over n elements in parallel; op sees compute_t<TI>. out may alias in.
template <class TI, class TO, class Op>
void map_unary(const TI* in, TO* out, int64_t n, Op op) {
  using C = compute_t<TI>;
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = static_cast<TO>(op(C(in[i])));
  });
}

}  // namespace ie
