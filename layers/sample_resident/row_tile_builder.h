// Recognizes a sample-resident chain (sample_resident_builder.h's ChainSpec) as a pre-LN transformer autoencoder
// and lays it out for the row-tile kernel (row_tile_model.h, row_tile.cuh): sizes, the float blob, the weights in
// fragment order grouped into stages, the shared-memory plan. Plain C++, shared by the engine and the lab.
//
// Fragment order: for each pair of 8-column tiles j2 (output columns 16 j2 ..) and k-step kk, 32 lanes x 16 bytes:
// lane l (g = l / 4, q = l % 4) holds W^T[16 j2 + g][16 kk + 2q, +1], W^T[16 j2 + g][16 kk + 8 + 2q, +1], then the
// same for row 16 j2 + 8 + g: the B operands of two m16n8k16 products in one 16-byte load.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layers/common/mma_fragment_order.h"
#include "layers/sample_resident/row_tile_model.h"
#include "layers/sample_resident/sample_resident_builder.h"

namespace ie::sr {

// The widths and head dims the kernel is compiled for (registers hold a row's accumulators: a compile-time size).
struct RtShape {
  int width, head_dim;
};
constexpr RtShape kRtShapes[] = {{64, 16}};

struct RtBudget {
  int smem_bytes = 227 * 1024;
  int warps = 8;  // per CTA
  int mt = 2;     // 16-row MMA tiles per warp (whole samples packed into them)
  int group = 1;  // warps per 16-row tile, a head each (row_heads.cuh; then mt = 1 and group = heads)
};

struct RtBuilt {
  RtModel model;
  std::vector<unsigned char> weights;
  std::vector<float> floats;
};

/// Lays out `spec` for the row-tile kernel; false with the reason in *why when it is not that architecture or a
/// size is outside what the kernel is compiled for.
bool build_row_tile(const ChainSpec& spec, const RtBudget& budget, RtBuilt* out, std::string* why);

using ie::fragment_order;  // layers/common/mma_fragment_order.h: the kernel's B operands

}  // namespace ie::sr
