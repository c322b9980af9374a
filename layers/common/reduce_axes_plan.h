// The plan of a reduction over any set of axes (see reduce_axes.h): shared by the CPU loop and the CUDA kernels,
// so it depends on nothing but shapes.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/shape.h"

namespace ie {

/// Input offsets i -> stride * i for a single run of dims, or a table when several runs are involved.
struct OffsetList {
  int64_t count = 1;
  int64_t stride = 0;
  std::vector<int64_t> table;
  int64_t at(int64_t i) const { return table.empty() ? i * stride : table[i]; }
};

struct ReducePlan {
  OffsetList rows;     // input offset of each output row (a row is `inner` consecutive outputs)
  OffsetList reduced;  // offsets, relative to a row, of the values that fold into one output
  int64_t inner = 1;   // trailing kept elements, contiguous in input and output
};

/// Plans reducing a C-ordered tensor of `shape` over `axes` (each in [0, rank), no repeats); outputs are C-ordered
/// over the kept dims.
ReducePlan plan_reduce(const Shape& shape, const std::vector<int64_t>& axes);

}  // namespace ie
