// Lays out a sample-resident chain of the row-tile form (the pre-LN transformer autoencoder, recognized as for the
// Tensor Core kernel: row_tile_builder.h) in strict fp32 for the FFMA kernels (row_ffma_model.h): the tiled form
// (row_ffma.cuh) and the row-per-lane form (row_lane.cuh), each Linear's W as [k][n] floats. Plain C++, shared by the
// lab (tests/kernels/row_ffma_lab.cu) and the unit test; the engine does not route to these kernels (measured slower
// than the per-step fp32 path; the lab's header has the figures).
#pragma once

#include <string>
#include <vector>

#include "layers/sample_resident/row_ffma_model.h"
#include "layers/sample_resident/sample_resident_builder.h"

namespace ie::sr {

// The FFMA kernel's budget: shared memory, and one of its compiled forms (kRfCompiled).
struct RfBudget {
  int smem_bytes = 227 * 1024;   // per CTA (the device's opt-in limit)
  int smem_per_sm = 228 * 1024;  // and per SM, of which each CTA reserves smem_reserved
  int smem_reserved = 1024;
  RfCompiled compiled = kRfCompiled[0];
  int min_slot_bytes = 16 * 1024;  // each weight slot at least this (or the largest W), over the CTAs per SM
};

struct RfBuilt {
  RfLayout layout;
  std::vector<float> weights;  // each Linear's W [k][n]
  std::vector<float> floats;
};

/// Lays out `spec` (compute F32) for the FFMA kernel; false with the reason when it is not that architecture, a
/// size is outside the kernel's range or no tile fits.
bool build_row_ffma(const ChainSpec& spec, const RfBudget& budget, RfBuilt* out, std::string* why);

// The row-per-lane FFMA kernel's budget (row_lane.cuh).
struct RlBudget {
  int smem_bytes = 227 * 1024;
  int threads = 256;  // compiled
};

struct RlBuilt {
  RlLayout layout;
  std::vector<float> weights;  // the stages, each Linear's W [k][n]
  std::vector<float> floats;
};

/// Lays out `spec` (compute F32) for the row-per-lane FFMA kernel; false with the reason when it is not that
/// architecture, a size is outside the kernel's range or the tile does not fit.
bool build_row_lane(const ChainSpec& spec, const RlBudget& budget, RlBuilt* out, std::string* why);

}  // namespace ie::sr
