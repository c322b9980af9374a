// The row-tile form in strict fp32: the same pre-LN transformer autoencoder (row_tile_model.h's RtModel: sizes and
// the places of the floats) laid out for the FFMA kernel (row_ffma.cuh), which keeps a tile of samples in shared
// memory as float, column-major (element [row][col] at col * ld + row, so that a thread's 4 rows x 4 columns of a
// product are two 16-byte loads per k), and streams each Linear's W [k][n] through two shared-memory slots in
// chunks of kc rows. Made by row_tile_builder.h's build_row_ffma; plain structs, the same bytes on the host and the
// device (a kernel parameter).
#pragma once

#include <cstdint>

#include "layers/sample_resident/row_tile_model.h"

namespace ie::sr {

constexpr int kRfMaxLinears = 4 + 4 * kRtMaxBlocks;
constexpr int kRfMaxSeq = 16;          // a query's scores live in registers
constexpr int kRfLnMaxPerThread = 32;  // LayerNorm: a lane's share of a row, in registers

// The kernels compiled (row_ffma.cuh's kernel_for): threads per CTA, 4-row groups a lane holds in a row Linear (its
// warp tile: 32 x row_groups rows x 16 columns), the most warp tiles per warp and 4-column decoder items per
// thread its registers hold (the builder keeps within them), and the CTAs an SM holds (their shared memory shares it).
struct RfCompiled {
  int threads, row_groups, max_tiles, max_decoder_items, ctas_per_sm;
};
constexpr RfCompiled kRfCompiled[] = {
    {256, 2, 3, 8, 1},
    {512, 1, 3, 4, 1},
    {128, 1, 3, 4, 3},
};

// One Linear in the order the kernel streams them: W [k][n] row-major at float `w` of the weight blob, in chunks
// of kc rows (the last one shorter) that fill one slot.
struct RfGemm {
  int32_t w = 0;
  int32_t k = 0, n = 0, kc = 0;
};

struct RfLayout {
  RtModel m;  // sizes and float offsets; its RtLinear::w index `gemm` (the stream order) instead of bytes
  // The stream: the embedding, per block q | k | v, the projection, fc1, fc2, then the encoder, the decoder and the
  // output Linear.
  int32_t linears = 0;
  RfGemm gemm[kRfMaxLinears];
  // A tile: `tile` samples, rows = tile x seq, computed over rows_pad (whole warp tiles of 32 x row_groups rows),
  // by `threads` threads (the compiled form: kRfCompiled).
  int32_t tile = 0, rows = 0, rows_pad = 0, ld = 0, threads = 256, row_groups = 1, ctas_per_sm = 1;
  int32_t ln_tpr = 1;  // LayerNorm: lanes per row (a power of 2 up to 8; ld = 32 / ln_tpr mod 32)
  // Shared memory, float offsets: the floats; two weight slots; h (the residual stream, width x ld), a (width x ld:
  // LayerNorm's output and attention's), big (max(3 width, hidden, slice) x ld: the input, q | k | v, fc1's output,
  // the encoder's partial sums); z (tile x z_stride: the latents); the slots' barriers.
  int32_t floats_smem = 0, slots_smem = 0, slot_floats = 0;
  int32_t h_smem = 0, a_smem = 0, big_smem = 0, big_rows = 0, z_smem = 0, z_stride = 0;
  int32_t bars_smem = 0;  // the slots' two mbarriers (8-byte aligned)
  int32_t smem_bytes = 0;
};

// The lane-per-row form (row_lane.cuh): one lane holds one row of a sample (width floats) in registers from the
// embedding to the output; the Linears' W [k][n] are read from shared memory as broadcasts (every lane of a warp
// the same 16 bytes). A warp packs spw = 32 / seq whole samples; a CTA of `warps` warps takes tile = warps x spw
// samples. Weights stream by stage (row_tile_model.h: the embedding; per block q | k | v with the projection, fc1
// with fc2; the encoder; the decoder; the output Linear), a stage larger than a slot (the encoder's and decoder's
// W) in chunks of whole rows.
constexpr int kRlMaxChunks = 4 + 2 * kRtMaxBlocks + 8;
constexpr int kRlMaxDecoderItems = 16;  // 4-column decoder items per thread (registers)
struct RlShape {
  int width, head_dim;
};
constexpr RlShape kRlShapes[] = {{64, 16}};  // compiled (a row in registers: compile-time sizes)

struct RlChunk {
  int32_t w = 0;       // float offset in the weight blob
  int32_t floats = 0;  // a multiple of 4
};

struct RlLayout {
  RtModel m;  // sizes, float offsets; RtLinear::w: the float offset of its W [k][n] in its stage
  int32_t chunks = 0;
  RlChunk chunk[kRlMaxChunks];
  int32_t enc_kc = 0, dec_kc = 0;  // rows of the encoder's and the decoder's W per chunk
  int32_t warps = 8, spw = 0, tile = 0;
  // Shared memory, float offsets: the floats; two weight slots; scratch (a warp's k and v rows for one head during
  // attention, kv_stride floats a lane; the tile's rows flattened, flat_stride floats a sample and row_stride a
  // row, for the encoder and the decoder); the encoder's partial sums; the latents (z_stride a sample); barriers.
  int32_t floats_smem = 0, slots_smem = 0, slot_floats = 0, scratch_smem = 0, kv_stride = 0;
  int32_t flat_stride = 0, row_stride = 0, partial_smem = 0, enc_split = 1, z_smem = 0, z_stride = 0;
  int32_t bars_smem = 0, smem_bytes = 0;
};

}  // namespace ie::sr
