#include "layers/common/indices.h"

namespace ie {

std::vector<int64_t> checked_indices(const TensorRef& t, int64_t dim, const std::string& where) {
  if (t.dtype != DType::Int32 && t.dtype != DType::Int64)
    fail_input(where, ": indices must be int32 or int64, got ", dtype_name(t.dtype));
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t x = t.dtype == DType::Int32 ? t.as<int32_t>()[i] : t.as<int64_t>()[i];
    if (x < -dim || x >= dim) fail_input(where, ": index ", x, " is out of range for a dim of size ", dim);
    v[i] = x < 0 ? x + dim : x;
  }
  return v;
}

void expect_index_input(const InferContext& ctx, size_t i) {
  DType t = ctx.input(i).dtype;
  ctx.expect(t == DType::Int64 || t == DType::Int32, "indices (input ", i, ") must be int32 or int64, got ",
             dtype_name(t));
}

}  // namespace ie
