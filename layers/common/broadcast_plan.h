// The broadcast plan of an elementwise op: every input aligned to the output's rank with stride 0 on broadcast
// dims, neighbouring dims merged where every input walks them the same way. Shared by the CPU loops
// (broadcast.h) and the CUDA kernels, so it depends on nothing but shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/shape.h"

namespace ie {

struct BroadcastPlan {
  Shape dims;                                 // merged output dims, innermost last (at least one)
  std::vector<std::vector<int64_t>> strides;  // per input: element stride per merged dim, 0 where broadcast
  int64_t numel = 0;

  int64_t inner() const { return dims.back(); }
  /// True when input i advances along the innermost dim (else it repeats one element per run).
  bool inner_moves(size_t i) const { return strides[i].back() != 0; }
};

/// Plans how `inputs` broadcast to `out`; every input must broadcast to `out` (checked by shape inference).
BroadcastPlan plan_broadcast(const std::vector<Shape>& inputs, const Shape& out);

/// Numpy broadcast of any number of shapes; throws naming `what` when they do not broadcast.
Shape broadcast_all(const std::vector<Shape>& shapes, const std::string& what);

}  // namespace ie
