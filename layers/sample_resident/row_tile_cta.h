// The row-tile kernel's CTA shapes (warps x MMA tiles per warp) and the estimate that picks one per batch. Plain
// C++: the engine's kernel factory (sample_resident_cuda.cu) chooses with it, and unit tests check the choice.
#pragma once

#include <cstdint>

#include "layers/sample_resident/row_tile_model.h"

namespace ie::sr {

// A shape and its measured times (lab, H200, SSA bf16, microseconds, launch included, two rounds; tools/results/
// h200/linear_resident/call_d/, the weight stages by bulk copy): one wave whose CTAs each have one warp with samples
// (batch 1), one wave of full CTAs, and each further wave (a persistent CTA taking its next tile). Large CTAs take
// less time per sample once full; small ones give each busy warp a scheduler of its own and finish a small batch
// sooner (4 x 1: 0.0275 against 12 x 1's 0.0366 ms at 32 samples, 0.0290 against 0.0374 at 512).
// Warp groups sharing a tile, one attention head each (group 4, row_heads.cuh; tools/results/h200/row_heads/call_d/):
// each sample's chain split over four warps takes less time alone (batch 1: 24.5 us for 2 samples a CTA, 25.0 for
// one, against 27.55 for 4 x 1), and more per sample once the SMs are full (512: 79 us against 29).
struct RtCtaShape {
  int warps, mt;
  double one_warp_us, full_wave_us, next_wave_us;  // one_warp_us: one warp (or warp group) of each CTA busy;
                                                   // a warp group a CTA: one CTA alone
  int group = 1;                                   // warps per shared tile (RtBudget::group)
};
constexpr RtCtaShape kRtCtaShapes[] = {{12, 1, 26.95, 37.0, 30.7},  {16, 1, 28.7, 45.2, 39.0},
                                       {8, 2, 48.55, 57.35, 54.8},  {4, 1, 27.55, 29.0, 21.4},
                                       {4, 1, 25.0, 26.5, 17.6, 4}, {8, 1, 24.5, 27.1, 19.2, 4}};

/// The estimated time of `batch` samples on `shape` laid out as `m` (its tile, warps and samples per warp or warp
/// group), with `slots` CTAs resident at once: the first wave by how many warps (groups) of its fullest CTA have
/// samples, then every further wave. It reproduces the lab within 5% from 1 to 65536 samples.
double rt_estimate_us(const RtCtaShape& shape, const RtModel& m, int64_t batch, int64_t slots);

}  // namespace ie::sr
