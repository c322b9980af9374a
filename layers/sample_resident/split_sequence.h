// ie.SampleResident in strict fp32: the pre-LN transformer autoencoder's chain (recognized as for the row-tile kernel,
// row_tile_recognize.h) as one step of a few launches, each product on the split-operand Tensor Core kernel
// (layers/linear/linear_split.cuh) with the LayerNorm beside it fused in: the embedding with its LayerNorm (+ GELU)
// in the epilogue; per block the block's LayerNorm in the prologue of one q | k | v product, the attention kernel
// reading q, k and v 3E apart, the projection + residual in place, the second LayerNorm in fc1's prologue (+ GELU),
// fc2 + residual in place; the encoder with the final LayerNorm in its prologue, and the decoder, its LayerNorm
// (+ GELU) and the output product in one kernel (linear_split_latent.cuh). Against the per-step fp32 plan the seven
// LayerNorm passes and the decoder's rows go and x is read once for q, k and v. Sizes the latent kernels are not
// compiled for run the encoder and decoder on cuBLASLt (the final LayerNorm in the last fc2's epilogue, the decoder's
// in the output product's prologue).
#pragma once

#include <memory>
#include <string>

#include "engine/registry/op_def.h"
#include "layers/sample_resident/sample_resident_builder.h"

namespace ie {

/// The chain as the split sequence, or nullptr with the reason in *why (not that architecture, a size the build does
/// not hold, too few rows for the split kernel, another precision mode than fp32).
std::unique_ptr<Kernel> make_split_sequence(const KernelInit& init, const sr::ChainSpec& spec, int64_t batch,
                                            std::string* why);

}  // namespace ie
