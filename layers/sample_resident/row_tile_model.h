// The row-tile form of a sample-resident chain: a pre-LN transformer autoencoder (a per-row embedding Linear and
// LayerNorm, any number of blocks of attention with RoPE and an MLP, a flattening encoder Linear to the latent, a
// decoder Linear back to rows, LayerNorm and a per-row output Linear), its sizes and the places of its parameters
// as data. Made on the host by row_tile_builder.h from the same chain spec as the interpreted program, read by the
// row-tile kernel (row_tile.cuh), where one warp keeps whole samples in registers from the input to the outputs.
// Plain structs, the same bytes on the host and the device (a kernel parameter).
#pragma once

#include <cstdint>

#include "layers/sample_resident/sample_resident_program.h"

namespace ie::sr {

constexpr int kRtMaxBlocks = 8;
constexpr int kRtMaxStages = 4 + 2 * kRtMaxBlocks;

// A Linear: W^T in fragment order (row_tile_builder.h) at byte `w` of its weight stage; its bias (always present,
// zeros when the model has none) at float `bias`; then the activation.
struct RtLinear {
  int32_t w = -1;
  int32_t bias = -1;
  int32_t act = 0;  // dev::Act: None or Gelu
};

// A LayerNorm over the row: gamma and beta (zeros when absent) at float offsets, then the activation.
struct RtNorm {
  int32_t gamma = -1, beta = -1;
  int32_t act = 0;
  float eps = 1e-5f;
};

struct RtBlock {
  RtNorm ln1;
  RtLinear qkv;                          // W^T [3 width][width]: the q, k and v blocks
  int32_t rope_cos = -1, rope_sin = -1;  // [seq][head_dim / 2] floats, or -1: no RoPE
  float scale = 1.f;                     // on the scores
  RtLinear proj;                         // + the block's input (residual)
  RtNorm ln2;
  RtLinear fc1, fc2;  // fc2: + its input's residual
};

struct RtModel {
  int32_t seq = 0, slice = 0, width = 0, heads = 0, head_dim = 0, hidden = 0, blocks = 0, latent = 0;
  RtLinear embed;
  RtNorm embed_norm;
  RtBlock block[kRtMaxBlocks];
  RtNorm final_norm;
  RtLinear enc, dec;
  RtNorm dec_norm;
  RtLinear out;
  // Weight stages, streamed in this order into two shared-memory slots: the embedding; per block its attention
  // (q | k | v and the projection) and its MLP (fc1 and fc2); the encoder; the decoder; the output Linear.
  int32_t stages = 0;
  int64_t stage_off[kRtMaxStages] = {};  // bytes into the weight blob
  int32_t stage_bytes[kRtMaxStages] = {};
  // Launch geometry: `warps` warps per CTA, each holding 16 mt rows (mt MMA tiles) that pack spw = 16 mt / seq
  // whole samples one after another (rows past them are padding); a tile of warps x spw samples; mtiles: the
  // 16-sample MMA tiles of the encoder and decoder.
  int32_t warps = 8, mt = 2, spw = 3, tile = 24, mtiles = 2;
  // Warps that share one 16-row tile, one attention head each (row_heads.cuh; 1: a warp owns its rows alone). With
  // group > 1: mt = 1, `warps` / group row tiles of spw samples, and the h streams below are per row tile.
  int32_t group = 1;
  // Shared memory (byte offsets).
  int32_t smem_bytes = 0;
  int32_t floats_smem = 0, floats_count = 0;
  int32_t slots = 0, slot_bytes = 0;
  int32_t h_smem = 0, h_warp_bytes = 0;    // each warp's residual stream, float, in its lanes' own order
  int32_t flat_smem = 0, flat_stride = 0;  // the tile's samples as flat rows (encoder input, decoder output)
  int32_t z_smem = 0, z_stride = 0;        // the latents as the decoder's A operand
  int32_t scratch_smem = 0;                // the encoder's split-K sums (over the residual streams)
  int32_t y_smem = 0, u_smem = 0;          // group > 1: each row tile's attention output and MLP hidden (A fragments)
  int32_t bars_smem = 0;                   // the two weight slots' mbarriers (16 bytes)
  // Global tensors: the input, then the outputs recon and latent, with their element types.
  Elem x_elem = Elem::F32, recon_elem = Elem::F32, latent_elem = Elem::F32;
  int32_t recon_output = 0, latent_output = 1;  // their indices among the chain's outputs
  // Stages whose work is left out (the lab's attribution; the results are then wrong): bit 0 the embedding, 1 the
  // attentions, 2 the MLPs, 3 the encoder, 4 the decoder, 5 the output Linear. Barriers and weights still run.
  int32_t skip = 0;
};

}  // namespace ie::sr
