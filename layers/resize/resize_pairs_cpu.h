// The CPU resize of image pre-processing: a resize of the last two dims whose taps read at most two positions
// (nearest and linear modes inside the crop box), one plane at a time. Each plane's input rows are resampled along
// W into a small buffer that stays in the core's cache, then each output row is the pair of those rows its H taps
// name, weighted (a loop along W that the compiler vectorizes), written straight into the output. The generic
// path (resize_axis in resize.cpp) resamples the whole tensor one axis at a time through full-size buffers, with
// a tap loop per element. Both compute every output as the same sums in the same order (along W for each H tap,
// then along H, zero weights skipped), so they give the same values.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/core/parallel.h"
#include "layers/resize/resize_setup.h"

namespace ie {

/// Taps of one output position that read at most two input positions; a weight of 0 is skipped.
template <class C>
struct PairTapsCpu {
  int64_t i0 = 0, i1 = 0;
  C w0 = 0, w1 = 0;
};

/// `taps` as pairs, or false when one reads more than two positions or extrapolates.
template <class C>
bool pair_taps_cpu(const std::vector<Taps>& taps, std::vector<PairTapsCpu<C>>* out) {
  out->clear();
  for (const Taps& t : taps) {
    if (t.extrapolate || t.count < 1 || t.count > 2) return false;
    PairTapsCpu<C> p;
    p.i0 = t.index[0];
    p.w0 = static_cast<C>(t.weight[0]);
    p.i1 = t.count > 1 ? t.index[1] : t.index[0];
    p.w1 = t.count > 1 ? static_cast<C>(t.weight[1]) : C(0);
    out->push_back(p);
  }
  return true;
}

/// Resizes `planes` planes of [in_h, in_w] at x into [out_h, out_w] at y with pair taps along H (`rows`) and W
/// (`cols`), planes spread over the threads.
template <class C>
void resize_planes_pairs(const ResizePlanes& p, const std::vector<PairTapsCpu<C>>& rows,
                         const std::vector<PairTapsCpu<C>>& cols, const C* x, C* y) {
  const int64_t in_hw = p.in_h * p.in_w, out_hw = p.out_h * p.out_w;
  parallel_for(p.planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, out_hw)), [&](int64_t b, int64_t e) {
    std::vector<C> across(static_cast<size_t>(p.in_h * p.out_w));
    for (int64_t q = b; q < e; ++q) {
      const C* plane = x + q * in_hw;
      for (int64_t iy = 0; iy < p.in_h; ++iy) {
        const C* in_row = plane + iy * p.in_w;
        C* a = across.data() + iy * p.out_w;
        for (int64_t ox = 0; ox < p.out_w; ++ox) {
          const PairTapsCpu<C>& t = cols[static_cast<size_t>(ox)];
          C acc = 0;
          if (t.w0 != C(0)) acc += t.w0 * in_row[t.i0];
          if (t.w1 != C(0)) acc += t.w1 * in_row[t.i1];
          a[ox] = acc;
        }
      }
      C* out = y + q * out_hw;
      for (int64_t oy = 0; oy < p.out_h; ++oy) {
        const PairTapsCpu<C>& t = rows[static_cast<size_t>(oy)];
        const C* a0 = across.data() + t.i0 * p.out_w;
        const C* a1 = across.data() + t.i1 * p.out_w;
        const C w0 = t.w0, w1 = t.w1;
        C* o = out + oy * p.out_w;
        // The weights are the row's: the tests leave the loops, which then vectorize.
        if (w0 != C(0) && w1 != C(0)) {
          for (int64_t ox = 0; ox < p.out_w; ++ox) {
            C acc = 0;
            acc += w0 * a0[ox];
            acc += w1 * a1[ox];
            o[ox] = acc;
          }
        } else if (w0 != C(0) || w1 != C(0)) {
          const C w = w0 != C(0) ? w0 : w1;
          const C* a = w0 != C(0) ? a0 : a1;
          for (int64_t ox = 0; ox < p.out_w; ++ox) {
            C acc = 0;
            acc += w * a[ox];
            o[ox] = acc;
          }
        } else {
          std::fill(o, o + p.out_w, C(0));
        }
      }
    }
  });
}

}  // namespace ie
