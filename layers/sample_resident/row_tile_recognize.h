// Shared by the row-tile layouts (row_tile_builder.cpp for the Tensor Core kernel, row_ffma_builder.cpp for the
// strict-fp32 kernels) and the strict-fp32 split sequence (split_sequence_cuda.cu): the recognition of a chain as the
// pre-LN transformer autoencoder, with each Linear's weights packed by the caller, and the reasons it gives.
#pragma once

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "layers/sample_resident/row_tile_builder.h"

namespace ie::sr {

/// A Linear's weights in a kernel's layout (bytes).
using RowTilePack = std::function<std::vector<unsigned char>(const ChainOp&)>;

/// Fills result's model (sizes, parameter places) and floats and packs each Linear by `pack` into `stages` (the
/// embedding; per block q | k | v with the projection, fc1 with fc2; the encoder; the decoder; the output Linear;
/// RtLinear::w: the byte offset in its stage). False with the reason when the chain is not that architecture.
bool recognize_row_tile(const ChainSpec& spec, const RowTilePack& pack, RtBuilt* result,
                        std::vector<std::vector<unsigned char>>* stages, std::string* why);

/// False with "not the row-tile form: " and the arguments in *why.
template <class... Args>
bool fail(std::string* why, const Args&... args) {
  std::ostringstream s;
  s << "not the row-tile form: ";
  (s << ... << args);
  if (why) *why = s.str();
  return false;
}

inline int align_up(int v, int a) { return (v + a - 1) / a * a; }

}  // namespace ie::sr
