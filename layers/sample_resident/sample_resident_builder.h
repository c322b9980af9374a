// Compiles a chain of per-sample steps into the program of the persistent kernel (sample_resident_program.h):
// instructions, shared-memory buffers by lifetime, the weight blob and the float blob. Plain C++ with no engine
// dependency, so the kernel's lab builds the same programs as the engine (layers/sample_resident/
// sample_resident.cpp turns a fused node's parts into a ChainSpec).
//
//   ChainSpec spec;  spec.compute = Elem::BF16;
//   spec.tensors = {{"x", 10, 32, -1, 0}, {"h", 10, 64}, ...};   // per-sample geometry, global inputs/outputs
//   spec.ops.push_back(...);                                     // Linear, LayerNorm, Attention (projected)
//   Built built;  std::string why;
//   if (!build_program(spec, Budget{}, &built, &why)) ...        // why: the shape or size it cannot take
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layers/sample_resident/sample_resident_program.h"

namespace ie::sr {

struct ChainTensor {
  std::string name;
  int rows = 1, cols = 1;   // per sample, as its producer and readers see it
  int alias_of = -1;        // a reshape or cast of that tensor: the same bytes in another view
  int input = -1;           // index of the global input it is read from, or -1
  int output = -1;          // index of the global output it is written to, or -1
  Elem global = Elem::F32;  // its type in global memory (inputs and outputs)
};

struct ChainOp {
  OpCode op = OpCode::Linear;  // Linear, LayerNorm, Attention (with its q, k, v projection) or Softmax
  int in = -1, out = -1, residual = -1;
  int k = 0, n = 0;                // Linear: in [rows, k] -> out [rows, n]; Attention: in [seq, k] -> out [seq, n]
  std::vector<uint16_t> w;         // W^T [n][k] (Attention: [3 n][k], the q, k and v blocks) in the compute type
  std::vector<float> w32;          // the same in float where the compute type is F32 (w is then empty)
  std::vector<float> bias;         // n (Attention: 3 n), or empty
  std::vector<float> gamma, beta;  // LayerNorm: cols each (beta may be empty)
  std::vector<float> cos, sin;     // Attention: RoPE tables [seq][head_dim / 2], or empty
  int act = 0;                     // dev::Act
  float eps = 1e-5f, scale = 1.f;
  int heads = 0, head_dim = 0;
};

struct ChainSpec {
  Elem compute = Elem::BF16;  // F16 or BF16: the Tensor Cores' operand type; F32: strict fp32 (row_ffma.cuh only)
  std::vector<ChainTensor> tensors;
  std::vector<ChainOp> ops;  // in execution order
};

struct Budget {
  int smem_bytes = 227 * 1024;  // per CTA (the device's opt-in limit)
  int max_warps = 16;
  int tile = 16;                      // samples per tile
  int weight_slot_bytes = 24 * 1024;  // a Linear whose W^T is larger runs as column slices of at most this
};

struct Built {
  Program program;
  std::vector<uint16_t> weights;
  std::vector<float> floats;
  int global_inputs = 0, global_outputs = 0;
};

/// Compiles `spec`; false with the reason in *why when the kernel cannot run it (a shape out of range, more
/// shared memory than the budget, too many instructions).
bool build_program(const ChainSpec& spec, const Budget& budget, Built* out, std::string* why);

/// Whether the chain holds a LayerNorm or an attention (a transformer's chain, not a classifier head's products).
bool has_norm_or_attention(const ChainSpec& spec);

/// Multiply-adds x 2 of one sample through the chain (for the profiler's FLOP figures).
double chain_flops_per_sample(const ChainSpec& spec);

}  // namespace ie::sr
