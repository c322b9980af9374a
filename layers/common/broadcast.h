// Numpy-style broadcasting for elementwise kernels with any number of inputs.
//
// plan_broadcast() aligns every input to the output's rank, gives broadcast dims a stride of 0 and merges
// neighbouring dims that every input walks the same way, so equal shapes collapse to one contiguous run and a
// bias over trailing dims ([N,C,H,W] + [C,1,1]) becomes rows of H*W against one scalar. for_each_run() then
// visits the output in contiguous runs of the innermost merged dim, in parallel; in each run an input either
// advances with the output (inner stride 1) or stays on one element (inner stride 0).
//
//   BroadcastPlan p = plan_broadcast({a.shape, b.shape}, out.shape);
//   broadcast_binary(p, a.as<float>(), b.as<float>(), out.as<float>(), [](float x, float y) { return x + y; });
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "engine/core/parallel.h"
#include "engine/core/shape.h"
#include "layers/common/broadcast_plan.h"
#include "layers/common/elementwise.h"

namespace ie {

/// Calls fn(out_offset, in_offsets, length) for contiguous runs of the output, in parallel for big outputs.
/// in_offsets is a std::array<int64_t, N> of element offsets of each input at the run's start.
template <size_t N, class Fn>
void for_each_run(const BroadcastPlan& p, Fn&& fn) {
  const int64_t rank = static_cast<int64_t>(p.dims.size());
  const int64_t inner = p.inner();
  parallel_for(p.numel, kElementwiseGrain, [&](int64_t begin, int64_t end) {
    // Multi-index of `begin` over the merged dims, and each input's offset there.
    std::vector<int64_t> idx(rank);
    std::array<int64_t, N> off{};
    int64_t rem = begin;
    for (int64_t d = rank - 1; d >= 0; --d) {
      idx[d] = rem % p.dims[d];
      rem /= p.dims[d];
      for (size_t i = 0; i < N; ++i) off[i] += idx[d] * p.strides[i][d];
    }
    int64_t pos = begin;
    while (pos < end) {
      int64_t len = std::min(inner - idx[rank - 1], end - pos);
      fn(pos, off, len);
      pos += len;
      // Advance the odometer by len: the innermost dim moves by len, carries ripple outwards.
      idx[rank - 1] += len;
      for (size_t i = 0; i < N; ++i) off[i] += len * p.strides[i][rank - 1];
      for (int64_t d = rank - 1; d > 0 && idx[d] == p.dims[d]; --d) {
        idx[d] = 0;
        ++idx[d - 1];
        for (size_t i = 0; i < N; ++i) off[i] += p.strides[i][d - 1] - p.dims[d] * p.strides[i][d];
      }
    }
  });
}

/// out = op(a, b) with broadcasting; op receives compute_t values (float for half) and its result is converted
/// to TO. out may alias a or b when that input has the output's shape.
template <class TA, class TB, class TO, class Op>
void broadcast_binary(const BroadcastPlan& p, const TA* a, const TB* b, TO* out, Op op) {
  using CA = compute_t<TA>;
  using CB = compute_t<TB>;
  const bool ma = p.inner_moves(0), mb = p.inner_moves(1);
  for_each_run<2>(p, [&](int64_t o, const std::array<int64_t, 2>& in, int64_t n) {
    const TA* pa = a + in[0];
    const TB* pb = b + in[1];
    TO* po = out + o;
    if (ma && mb) {
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<TO>(op(CA(pa[i]), CB(pb[i])));
    } else if (ma) {
      const CB vb = CB(*pb);
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<TO>(op(CA(pa[i]), vb));
    } else if (mb) {
      const CA va = CA(*pa);
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<TO>(op(va, CB(pb[i])));
    } else {
      const TO v = static_cast<TO>(op(CA(*pa), CB(*pb)));
      std::fill(po, po + n, v);
    }
  });
}

}  // namespace ie
