#include "layers/common/elementwise.h"

namespace ie {

bool type_in(TypeClass cls, DType t) {
  bool is_unsigned = t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
  switch (cls) {
    case TypeClass::Float:
      return is_float(t);
    case TypeClass::Signed:
      return is_float(t) || (is_integer(t) && !is_unsigned);
    case TypeClass::Numeric:
      return is_float(t) || is_integer(t);
    case TypeClass::Integer:
      return is_integer(t);
    case TypeClass::Unsigned:
      return is_unsigned;
    case TypeClass::Bool:
      return t == DType::Bool;
    case TypeClass::All:
      return is_float(t) || is_integer(t) || t == DType::Bool;
  }
  return false;
}

const char* type_class_name(TypeClass cls) {
  switch (cls) {
    case TypeClass::Float:
      return "a float type";
    case TypeClass::Signed:
      return "a float or signed integer type";
    case TypeClass::Numeric:
      return "a number type";
    case TypeClass::Integer:
      return "an integer type";
    case TypeClass::Unsigned:
      return "an unsigned integer type";
    case TypeClass::Bool:
      return "bool";
    case TypeClass::All:
      return "a numeric or bool type";
  }
  return "?";
}

void expect_type(const InferContext& ctx, size_t i, TypeClass cls) {
  DType t = ctx.input(i).dtype;
  ctx.expect(type_in(cls, t), "input ", i, " ('", ctx.node().inputs[i], "') has element type ", dtype_name(t),
             "; expected ", type_class_name(cls));
}

void expect_same_type(const InferContext& ctx, size_t i, size_t j) {
  DType a = ctx.input(i).dtype, b = ctx.input(j).dtype;
  ctx.expect(a == b, "inputs ", i, " and ", j, " must have the same element type, got ", dtype_name(a), " and ",
             dtype_name(b));
}

}  // namespace ie
