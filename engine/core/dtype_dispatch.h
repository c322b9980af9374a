// Element-type helpers: C++ type for each DType, and dispatch from a run-time DType to a template.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <type_traits>

#include "engine/core/dtype.h"
#include "engine/core/error.h"

namespace ie {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;

template <class T> struct TypeTag { using type = T; };

/// The 16-bit float types, stored narrow and computed in float.
template <class T>
inline constexpr bool is_half_like_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

/// The type arithmetic runs in for element type T: float for the 16-bit floats (rounded back on store), else T.
template <class T>
using ComputeOf = std::conditional_t<is_half_like_v<T>, float, T>;

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::Float32; }
template <> constexpr DType dtype_of<double>() { return DType::Float64; }
template <> constexpr DType dtype_of<half>() { return DType::Float16; }
template <> constexpr DType dtype_of<bfloat16>() { return DType::BFloat16; }
template <> constexpr DType dtype_of<int8_t>() { return DType::Int8; }
template <> constexpr DType dtype_of<uint8_t>() { return DType::UInt8; }
template <> constexpr DType dtype_of<int16_t>() { return DType::Int16; }
template <> constexpr DType dtype_of<uint16_t>() { return DType::UInt16; }
template <> constexpr DType dtype_of<int32_t>() { return DType::Int32; }
template <> constexpr DType dtype_of<uint32_t>() { return DType::UInt32; }
template <> constexpr DType dtype_of<int64_t>() { return DType::Int64; }
template <> constexpr DType dtype_of<uint64_t>() { return DType::UInt64; }
template <> constexpr DType dtype_of<bool>() { return DType::Bool; }

inline bool is_float(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::Float16 || t == DType::BFloat16;
}
inline bool is_integer(DType t) {
  switch (t) {
    case DType::Int8: case DType::UInt8: case DType::Int16: case DType::UInt16:
    case DType::Int32: case DType::UInt32: case DType::Int64: case DType::UInt64: return true;
    default: return false;
  }
}

// dispatch_*(dtype, where, fn): calls fn(TypeTag<T>{}) for the C++ type of dtype, or throws
// Error(BadInput) naming `where` and the unsupported type.
template <class Fn>
decltype(auto) dispatch_float(DType t, const char* where, Fn&& fn) {
  switch (t) {
    case DType::Float32: return fn(TypeTag<float>{});
    case DType::Float64: return fn(TypeTag<double>{});
    case DType::Float16: return fn(TypeTag<half>{});
    case DType::BFloat16: return fn(TypeTag<bfloat16>{});
    default: fail_input(where, ": unsupported element type ", dtype_name(t), " (expected a float type)");
  }
}

// Signed numbers: floats plus the signed integers (for Neg, Abs, Sub ...).
template <class Fn>
decltype(auto) dispatch_numeric(DType t, const char* where, Fn&& fn) {
  switch (t) {
    case DType::Float32: return fn(TypeTag<float>{});
    case DType::Float64: return fn(TypeTag<double>{});
    case DType::Float16: return fn(TypeTag<half>{});
    case DType::BFloat16: return fn(TypeTag<bfloat16>{});
    case DType::Int8: return fn(TypeTag<int8_t>{});
    case DType::Int16: return fn(TypeTag<int16_t>{});
    case DType::Int32: return fn(TypeTag<int32_t>{});
    case DType::Int64: return fn(TypeTag<int64_t>{});
    case DType::UInt8: return fn(TypeTag<uint8_t>{});
    case DType::UInt16: return fn(TypeTag<uint16_t>{});
    case DType::UInt32: return fn(TypeTag<uint32_t>{});
    case DType::UInt64: return fn(TypeTag<uint64_t>{});
    default: fail_input(where, ": unsupported element type ", dtype_name(t), " (expected a number type)");
  }
}

// Every fixed-size type, bool included (for data movement and comparisons).
template <class Fn>
decltype(auto) dispatch_all(DType t, const char* where, Fn&& fn) {
  if (t == DType::Bool) return fn(TypeTag<bool>{});
  return dispatch_numeric(t, where, std::forward<Fn>(fn));
}

// Data movement only depends on the element size: dispatch to an unsigned integer of that size.
template <class Fn>
decltype(auto) dispatch_by_size(DType t, const char* where, Fn&& fn) {
  switch (dtype_size(t)) {
    case 1: return fn(TypeTag<uint8_t>{});
    case 2: return fn(TypeTag<uint16_t>{});
    case 4: return fn(TypeTag<uint32_t>{});
    case 8: return fn(TypeTag<uint64_t>{});
    default: fail_input(where, ": unsupported element type ", dtype_name(t));
  }
}

}  // namespace ie
