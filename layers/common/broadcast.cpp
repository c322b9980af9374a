#include "layers/common/broadcast.h"

namespace ie {

BroadcastPlan plan_broadcast(const std::vector<Shape>& inputs, const Shape& out) {
  const size_t n = inputs.size(), rank = out.size();
  BroadcastPlan p;
  p.numel = numel_range(out, 0, rank);
  p.strides.resize(n);
  // Each input's stride for every output dim: its C-order stride, or 0 where it has size 1 (broadcast).
  std::vector<std::vector<int64_t>> full(n, std::vector<int64_t>(rank, 0));
  for (size_t i = 0; i < n; ++i) {
    const Shape& s = inputs[i];
    int64_t stride = 1;
    for (size_t k = 0; k < s.size(); ++k) {
      size_t d = rank - 1 - k;
      int64_t dim = s[s.size() - 1 - k];
      full[i][d] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
  }
  // Merge dim d into the previous kept dim when every input steps through both as one (or broadcasts both).
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    bool merge = !p.dims.empty();
    for (size_t i = 0; i < n && merge; ++i) merge = p.strides[i].back() == full[i][d] * out[d];
    if (merge) {
      p.dims.back() *= out[d];
      for (size_t i = 0; i < n; ++i) p.strides[i].back() = full[i][d];
    } else {
      p.dims.push_back(out[d]);
      for (size_t i = 0; i < n; ++i) p.strides[i].push_back(full[i][d]);
    }
  }
  if (p.dims.empty()) {
    p.dims.push_back(1);
    for (auto& s : p.strides) s.push_back(0);
  }
  return p;
}

Shape broadcast_all(const std::vector<Shape>& shapes, const std::string& what) {
  Shape out;
  for (const Shape& s : shapes) out = broadcast_shapes(out, s, what);
  return out;
}

}  // namespace ie
