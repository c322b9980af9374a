// Recognizes a sample-resident chain (sample_resident_builder.h's ChainSpec) as a classifier head, a product with
// an activation, a second product and a softmax over one row per sample (the conv net's flatten -> fc3 -> ReLU ->
// fc4 -> softmax), and lays it out for the head kernel (head_kernel.cuh). Plain C++, shared by the engine and the
// lab.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layers/sample_resident/sample_resident_builder.h"

namespace ie::sr {

constexpr int kHeadMaxHidden = 256;  // the hidden row in shared memory and the second product's K
constexpr int kHeadMaxClasses = 1024;

// Sizes and the places of the parameters; a kernel parameter (plain data, the same bytes on host and device).
struct HeadModel {
  int32_t k = 0, hidden = 0, classes = 0;
  int32_t act = 0;           // dev::Act of the first product
  Elem out = Elem::F32;      // the output's type in global memory: float32 or the compute type
  int32_t x_f32 = 0;         // the input is float32 (else the compute type)
  int32_t rows = 8;          // samples per CTA
  int32_t b1 = -1, b2 = -1;  // float offsets of the products' biases (hidden, classes; a missing bias is zeros)
  int32_t w2 = -1;           // element offset of W2^T [classes][hidden] in the weights, after W1^T [hidden][k]
  int32_t smem_bytes = 0;
};

struct HeadBuilt {
  HeadModel model;
  std::vector<uint16_t> weights;  // W1^T [hidden][k], then W2^T [classes][hidden], in the compute type
  std::vector<float> floats;
};

/// Lays out `spec` for the head kernels, `rows` samples per CTA of the CUDA-core head; false with the reason in *why
/// when the chain is not a head or a size is outside what the kernels take (K a multiple of 8, hidden up to
/// kHeadMaxHidden, classes up to kHeadMaxClasses). model.smem_bytes is the CUDA-core head's tile, which stages the
/// input rows: the caller checks it against the device, as the MMA head (head_mma_smem_bytes) stages none and takes
/// inputs too wide for that tile.
bool build_head(const ChainSpec& spec, int rows, HeadBuilt* out, std::string* why);

}  // namespace ie::sr
