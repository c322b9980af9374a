// The program of ie.SampleResident: a chain of per-sample steps as data, made on the host at plan time
// (sample_resident_builder.h) and read by the one persistent kernel (sample_resident.cuh). Plain structs of
// fixed size, the same bytes on the host and the device: the kernel reads them from global memory.
//
// A tile is `tile` consecutive samples. Every tensor of the chain lives in shared memory for the tile, its samples
// one after another, each sample row-major; an instruction reads or writes it through a View that says how many
// rows per sample and how many columns per row it sees (a Reshape is a second view of the same bytes). Shared
// memory is addressed through swizzle() so that ldmatrix and the epilogues' stores spread over the banks.
#pragma once

#include <cstdint>

namespace ie::sr {

constexpr int kMaxInstr = 64;
constexpr int kMaxIo = 8;
constexpr int kMaxLayerNormCols = 512;  // LayerNorm rows: a multiple of 64 up to this
constexpr int kMaxAttentionSeq = 16;    // Attention: rows per sample (one MMA tile of queries and keys)

enum class OpCode : int32_t {
  Load = 0,       // global input -> shared view, converted to the view's element type; zeros past the batch
  Store = 1,      // shared view -> global output, converted; samples past the batch are not written
  Linear = 2,     // out = act(in W + bias) (+ residual), W^T [n][k] staged in shared memory; RoPE on [0, rope_cols)
  LayerNorm = 3,  // out = act((in - mean) / sqrt(var + eps) * gamma + beta) over each row of `cols`
  Attention = 4,  // out = softmax(scale q k^T) v per (sample, head), q | k | v the three blocks of `in`'s columns
  Softmax = 5,    // out = softmax over each row of `cols` (a classifier's probabilities)
};

enum class Elem : int32_t { F32 = 0, F16 = 1, BF16 = 2 };

#if defined(__CUDACC__)
#define IE_SR_HOST_DEVICE __host__ __device__
#else
#define IE_SR_HOST_DEVICE
#endif

IE_SR_HOST_DEVICE inline int elem_bytes(Elem e) { return e == Elem::F32 ? 4 : 2; }

struct View {
  int32_t offset = -1;  // bytes from the start of shared memory; -1: the global tensor `io`
  int32_t io = -1;      // index into the kernel's global pointers (inputs, then outputs)
  Elem elem = Elem::F32;
  int32_t rows = 1;  // rows per sample
  int32_t cols = 0;  // elements per row
};

struct Instr {
  OpCode op = OpCode::Load;
  View in, out, residual;    // residual.offset < 0: none
  int32_t k = 0, n = 0;      // Linear: in is [rows, k], out [rows, n] (n any: W^T padded to a multiple of 16 rows)
  int32_t col0 = 0, nc = 0;  // Linear: this instruction computes output columns [col0, col0 + nc), nc a multiple of
                             // 16; the columns past n are computed on W^T's zero rows and not stored
  int32_t next_linear = -1;  // Linear: the next Linear, cyclically (the next tile's first after the last)
  int64_t w = -1;            // Linear: element offset of W^T [n][k] in the weight blob
  int32_t w_bytes = 0;       // its size
  int32_t ksplit = 1;        // Linear: warps that share one output tile, each a slice of k (its own float scratch)
  int32_t bias = -1;         // float offsets in the float blob, -1: none
  int32_t gamma = -1, beta = -1;
  int32_t act = 0;  // dev::Act
  float eps = 1e-5f;
  int32_t rope_cols = 0;                 // Linear: columns [0, rope_cols) rotated in pairs (2i, 2i + 1) of each head
  int32_t rope_cos = -1, rope_sin = -1;  // [rows per sample][head_dim / 2] floats
  int32_t heads = 0, head_dim = 0;       // Attention; Linear's RoPE uses head_dim
  float scale = 1.f;                     // Attention: applied to the scores
};

struct Program {
  int32_t count = 0;
  int32_t tile = 16;  // samples per tile (a multiple of 16: a sample's row is one row of an MMA tile)
  int32_t warps = 8;  // warps per CTA
  int32_t smem_bytes = 0;
  int32_t w_stage = -1;  // two weight slots of w_slot_bytes each, from this offset
  int32_t w_slot_bytes = 0;
  int32_t scratch = -1;                        // split-K partial sums, one block per slice
  int32_t zero = -1;                           // 16 zero bytes: the rows past a sample's end in attention
  int32_t program_smem = -1;                   // where the kernel copies this program (header and `count` instructions)
  int32_t floats_smem = -1, floats_count = 0;  // and the float blob
  int32_t inputs = 0, outputs = 0;
  int32_t first_linear = -1;
  Elem io_elem[kMaxIo] = {};
  Instr instr[kMaxInstr];
};

/// The byte offset where shared-memory byte `o` is stored: the 16-byte chunks of each 128-byte line permuted by
/// the line's index (chunk ^= line % 8), so that 8 rows of a tile at one column land in 8 different bank groups
/// for rows of 64, 128 and 384 bytes (2-way at worst for 256). Two instructions (a shift and one LOP3), and a
/// function of the address alone, so a reshape (another view of the same bytes) needs no copy. (An XOR with
/// (line ^ line / 8) % 8, conflict-free at 256 bytes too, cost 6 instructions per address: the kernel is bound
/// by its address arithmetic, not by bank conflicts.)
IE_SR_HOST_DEVICE inline uint32_t swizzle(uint32_t o) { return o ^ ((o >> 3) & 0x70u); }

}  // namespace ie::sr
