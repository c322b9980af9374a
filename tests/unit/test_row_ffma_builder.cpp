// The strict-fp32 row-tile layouts (build_row_ffma and build_row_lane, layers/sample_resident/row_ffma_builder.h) on
// the host: the
// SSA's chain in float32 and other sizes of its architecture get a tile, weight slots and a stream of Linears within
// the budget and the compiled forms' limits, each W laid out [k][n]; 16-bit chains, 16-bit tensors at the chain's
// ends and sizes past the kernel's range are declined with the reason. The kernel itself is checked on the GPU
// (tests/kernels/row_ffma_lab.cu, tests/gpu/test_cuda_sample_resident.cpp).
#include <doctest/doctest.h>

#include <random>

#include "layers/sample_resident/row_ffma_builder.h"
#include "tests/kernels/ssa_chain.h"

using namespace ie::sr;

namespace {

uint16_t no_bits(float, Elem) { return 0; }

RfBuilt build_ok(const ChainSpec& spec, const RfBudget& budget = RfBudget{}) {
  RfBuilt b;
  std::string why;
  const bool ok = build_row_ffma(spec, budget, &b, &why);
  INFO(why);
  REQUIRE(ok);
  return b;
}

// Every product within the form's limits, every buffer inside the budget, the slots holding each chunk.
void check_layout(const RfBuilt& b, const RfBudget& budget, const Shape& s) {
  const RfLayout& l = b.layout;
  const int warps = l.threads / 32, warp_rows = 32 * l.row_groups;
  CHECK(l.threads == budget.compiled.threads);
  CHECK(l.row_groups == budget.compiled.row_groups);
  CHECK(l.rows == l.tile * s.seq);
  CHECK(l.rows_pad % warp_rows == 0);
  CHECK(l.rows_pad >= l.rows);
  CHECK(l.rows_pad < l.rows + warp_rows);
  CHECK(l.ld >= l.rows_pad);
  CHECK(l.ld % 4 == 0);
  CHECK(s.width % l.ln_tpr == 0);
  if (s.width >= 8 * l.ln_tpr) CHECK(s.width / l.ln_tpr <= kRfLnMaxPerThread);
  if (l.ln_tpr > 1 && l.ln_tpr <= 8) CHECK(l.ld % 32 == 32 / l.ln_tpr);  // LayerNorm's loads in distinct banks
  CHECK(l.smem_bytes <= budget.smem_bytes);
  CHECK(l.linears == 4 + 4 * s.blocks);
  CHECK(l.a_smem == l.h_smem + s.width * l.ld);
  CHECK(l.big_smem == l.a_smem + s.width * l.ld);
  CHECK(l.z_smem >= l.big_smem + l.big_rows * l.ld);
  CHECK(l.slots_smem % 4 == 0);
  CHECK(l.slot_floats % 4 == 0);
  for (int i = 0; i < l.linears; ++i) {
    const RfGemm& g = l.gemm[i];
    CAPTURE(i);
    CHECK(g.w % 4 == 0);
    CHECK(g.kc >= 1);
    CHECK(g.kc * g.n <= l.slot_floats);
    CHECK(static_cast<size_t>(g.w) + static_cast<size_t>(g.k) * g.n <= b.weights.size());
    if (i != l.linears - 3 && i != l.linears - 2)  // the encoder and the decoder are not row products
      CHECK(((l.rows_pad / warp_rows) * (g.n / 16) + warps - 1) / warps <= budget.compiled.max_tiles);
  }
  const RfGemm& dec = l.gemm[l.linears - 2];
  CHECK((l.tile * dec.n / 4 + l.threads - 1) / l.threads <= budget.compiled.max_decoder_items);
}

}  // namespace

TEST_CASE("row FFMA layout: the SSA in float32, both compiled forms") {
  std::mt19937 rng(5);
  const ChainSpec spec = ssa_chain(Shape{}, Elem::F32, rng, no_bits);
  for (const RfCompiled& form : kRfCompiled) {
    RfBudget budget;
    budget.compiled = form;
    const RfBuilt b = build_ok(spec, budget);
    check_layout(b, budget, Shape{});
    const RfLayout& l = b.layout;
    // 120 rows of 128: the most samples that leave two 16 KiB slots in 227 KiB; 30 of 32 where CTAs share an SM
    CHECK(l.tile == (form.ctas_per_sm == 1 ? 12 : 3));
    // The stream order: embedding, per block q | k | v, projection, fc1, fc2, then encoder, decoder, output.
    CHECK(l.gemm[0].k == 32);
    CHECK(l.gemm[0].n == 64);
    CHECK(l.gemm[1].n == 192);
    CHECK(l.gemm[3].n == 128);
    CHECK(l.gemm[4].k == 128);
    CHECK(l.gemm[9].k == 640);
    CHECK(l.gemm[9].n == 32);
    CHECK(l.gemm[10].n == 640);
    CHECK(l.gemm[11].n == 32);
  }
}

TEST_CASE("row FFMA layout: each W is the chain's W^T transposed, [k][n]") {
  std::mt19937 rng(6);
  const ChainSpec spec = ssa_chain(Shape{}, Elem::F32, rng, no_bits);
  const RfBuilt b = build_ok(spec);
  const RfLayout& l = b.layout;
  // The chain's Linears and attentions in order are the stream's (the attention's q | k | v is one product).
  int lin = 0;
  for (const ChainOp& op : spec.ops) {
    if (op.op != OpCode::Linear && op.op != OpCode::Attention) continue;
    const RfGemm& g = l.gemm[lin++];
    REQUIRE(static_cast<size_t>(g.k) * g.n == op.w32.size());
    for (int k = 0; k < g.k; k += 7)
      for (int n = 0; n < g.n; n += 5)
        CHECK(b.weights[static_cast<size_t>(g.w) + static_cast<size_t>(k) * g.n + n] ==
              op.w32[static_cast<size_t>(n) * g.k + k]);
  }
  CHECK(lin == l.linears);
}

TEST_CASE("row FFMA layout: other sizes of the architecture, and what it declines") {
  std::mt19937 rng(7);
  Shape narrow;
  narrow.seq = 7, narrow.slice = 16, narrow.width = 48, narrow.heads = 3, narrow.hidden = 96, narrow.blocks = 1;
  narrow.latent = 20;
  Shape wide;
  wide.seq = 16, wide.slice = 32, wide.width = 128, wide.heads = 4, wide.hidden = 256, wide.blocks = 3;
  wide.latent = 64;
  RfBuilt b;
  std::string why;
  for (const Shape& s : {narrow, wide}) {
    int built = 0;
    for (const RfCompiled& form : kRfCompiled) {
      RfBudget budget;
      budget.compiled = form;
      if (!build_row_ffma(ssa_chain(s, Elem::F32, rng, no_bits), budget, &b, &why)) {
        CHECK(why.find("no tile fits") != std::string::npos);  // wide's 64-row warp tiles: 4 samples, too large
        continue;
      }
      ++built;
      check_layout(b, budget, s);
    }
    CHECK(built >= 1);
  }
  CHECK_FALSE(build_row_ffma(ssa_chain(Shape{}, Elem::BF16, rng, no_bits), RfBudget{}, &b, &why));
  CHECK(why.find("float32") != std::string::npos);
  Shape long_seq;
  long_seq.seq = 20;
  CHECK_FALSE(build_row_ffma(ssa_chain(long_seq, Elem::F32, rng, no_bits), RfBudget{}, &b, &why));
  CHECK(why.find("sequences of 20") != std::string::npos);
  RfBudget small;
  small.smem_bytes = 48 * 1024;
  CHECK_FALSE(build_row_ffma(ssa_chain(wide, Elem::F32, rng, no_bits), small, &b, &why));
  CHECK(why.find("no tile fits") != std::string::npos);
  ChainSpec half_out = ssa_chain(Shape{}, Elem::F32, rng, no_bits);
  for (ChainTensor& t : half_out.tensors)
    if (t.output == 0) t.global = Elem::F16;
  CHECK_FALSE(build_row_ffma(half_out, RfBudget{}, &b, &why));
  CHECK(why.find("float32 tensors") != std::string::npos);
}

TEST_CASE("row-per-lane layout: the SSA in float32: warps of whole samples, stages as chunks, shared memory") {
  std::mt19937 rng(8);
  const ChainSpec spec = ssa_chain(Shape{}, Elem::F32, rng, no_bits);
  RlBuilt b;
  std::string why;
  const bool ok = build_row_lane(spec, RlBudget{}, &b, &why);
  INFO(why);
  REQUIRE(ok);
  const RlLayout& l = b.layout;
  CHECK(l.spw == 3);  // 30 of a warp's 32 lanes
  CHECK(l.tile == 24);
  CHECK(l.smem_bytes <= RlBudget{}.smem_bytes);
  // Stages: the embedding, per block attention and MLP, the encoder and decoder (each one or more chunks), output.
  size_t floats = 0;
  for (int i = 0; i < l.chunks; ++i) {
    CAPTURE(i);
    CHECK(l.chunk[i].floats % 4 == 0);
    CHECK(l.chunk[i].w % 4 == 0);
    CHECK(l.chunk[i].floats <= l.slot_floats);
    CHECK(static_cast<size_t>(l.chunk[i].w) == floats);  // the chunks cover the blob in order
    floats += l.chunk[i].floats;
  }
  CHECK(floats == b.weights.size());
  CHECK(l.enc_kc * l.m.latent <= l.slot_floats);
  CHECK(l.dec_kc * l.m.seq * l.m.width <= l.slot_floats);
  CHECK(l.enc_kc >= 1);
  CHECK(l.dec_kc >= 1);
  // The attention stage holds q | k | v [64][192] then the projection [64][64], each W [k][n] of the chain's W^T.
  const RtBlock& blk = l.m.block[0];
  const int attn = l.chunk[1].w;
  for (const ChainOp& op : spec.ops)
    if (op.op == OpCode::Attention) {
      for (int k = 0; k < 64; k += 9)
        for (int n = 0; n < 192; n += 7)
          CHECK(b.weights[static_cast<size_t>(attn + blk.qkv.w + k * 192 + n)] ==
                op.w32[static_cast<size_t>(n) * 64 + k]);
      break;
    }
  CHECK(blk.proj.w == 64 * 192);
  RlBudget small;
  small.smem_bytes = 96 * 1024;
  CHECK_FALSE(build_row_lane(spec, small, &b, &why));
  CHECK(why.find("does not fit") != std::string::npos);
  Shape narrow;
  narrow.width = 48, narrow.heads = 3;
  CHECK_FALSE(build_row_lane(ssa_chain(narrow, Elem::F32, rng, no_bits), RlBudget{}, &b, &why));
  CHECK(why.find("compiled for 64 / 16") != std::string::npos);
}
