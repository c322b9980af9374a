#include "layers/common/reduce_axes.h"

namespace ie {

namespace {

struct Run {
  int64_t size, stride;
};

OffsetList offsets_of(const std::vector<Run>& runs) {
  OffsetList list;
  if (runs.empty()) return list;
  if (runs.size() == 1) {
    list.count = runs[0].size;
    list.stride = runs[0].stride;
    return list;
  }
  list.count = 1;
  for (auto& r : runs) list.count *= r.size;
  list.table.resize(static_cast<size_t>(list.count));
  std::vector<int64_t> idx(runs.size(), 0);
  int64_t off = 0;
  for (int64_t i = 0; i < list.count; ++i) {
    list.table[i] = off;
    for (int k = static_cast<int>(runs.size()) - 1; k >= 0; --k) {
      off += runs[k].stride;
      if (++idx[k] < runs[k].size) break;
      off -= runs[k].stride * runs[k].size;
      idx[k] = 0;
    }
  }
  return list;
}

}  // namespace

ReducePlan plan_reduce(const Shape& shape, const std::vector<int64_t>& axes) {
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t a : axes) reduced[a] = true;
  std::vector<int64_t> strides = strides_of(shape);
  // Runs of neighbouring dims of the same kind (size-1 dims do not matter) merge into one.
  std::vector<Run> runs;
  std::vector<bool> kind;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!runs.empty() && kind.back() == reduced[i]) {
      runs.back().size *= shape[i];
      runs.back().stride = strides[i];
      continue;
    }
    runs.push_back({shape[i], strides[i]});
    kind.push_back(reduced[i]);
  }
  ReducePlan plan;
  if (!runs.empty() && !kind.back()) {
    plan.inner = runs.back().size;
    runs.pop_back();
    kind.pop_back();
  }
  std::vector<Run> row_runs, red_runs;
  for (size_t i = 0; i < runs.size(); ++i) (kind[i] ? red_runs : row_runs).push_back(runs[i]);
  plan.rows = offsets_of(row_runs);
  plan.reduced = offsets_of(red_runs);
  return plan;
}

}  // namespace ie
