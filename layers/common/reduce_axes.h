// Reduction of a contiguous tensor over any set of axes: one planner and one loop shared by every Reduce* op.
// The plan coalesces neighbouring dims, so reducing trailing axes walks contiguous memory, and reducing leading
// axes accumulates whole contiguous rows of outputs at once.
#pragma once

#include <algorithm>
#include <vector>

#include "engine/core/parallel.h"
#include "engine/core/shape.h"
#include "layers/common/reduce_axes_plan.h"

namespace ie {

/// out[o] = op.finish(fold of op.step over the reduced values, count). Op provides:
///   using Acc = ...;  Acc init() const;  Acc step(Acc acc, T x) const;  T finish(Acc acc, int64_t count) const;
template <class T, class Op>
void reduce_axes(const T* in, T* out, const ReducePlan& plan, const Op& op) {
  using Acc = typename Op::Acc;
  const int64_t n = plan.reduced.count, inner = plan.inner;
  if (inner == 1) {
    parallel_for(plan.rows.count, std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const T* base = in + plan.rows.at(o);
        Acc acc = op.init();
        if (plan.reduced.table.empty()) {
          const int64_t s = plan.reduced.stride;
          for (int64_t r = 0; r < n; ++r) acc = op.step(acc, base[r * s]);
        } else {
          for (int64_t r = 0; r < n; ++r) acc = op.step(acc, base[plan.reduced.table[r]]);
        }
        out[o] = op.finish(acc, n);
      }
    });
    return;
  }
  // Rows of `inner` outputs are accumulated together, in chunks so that the accumulators stay in L1.
  constexpr int64_t kChunk = 1024;
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  parallel_for(plan.rows.count * chunks, std::max<int64_t>(1, 32768 / std::max<int64_t>(n * kChunk, 1)),
               [&](int64_t b, int64_t e) {
                 std::vector<Acc> acc(static_cast<size_t>(std::min(inner, kChunk)));
                 for (int64_t t = b; t < e; ++t) {
                   const int64_t o = t / chunks, j0 = (t % chunks) * kChunk, len = std::min(kChunk, inner - j0);
                   const T* base = in + plan.rows.at(o) + j0;
                   std::fill_n(acc.begin(), len, op.init());
                   for (int64_t r = 0; r < n; ++r) {
                     const T* p = base + plan.reduced.at(r);
                     for (int64_t j = 0; j < len; ++j) acc[j] = op.step(acc[j], p[j]);
                   }
                   T* dst = out + o * inner + j0;
                   for (int64_t j = 0; j < len; ++j) dst[j] = op.finish(acc[j], n);
                 }
               });
}

}  // namespace ie
