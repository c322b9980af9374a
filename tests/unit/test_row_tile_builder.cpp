// The row-tile layout (layers/sample_resident/row_tile_builder.h) on the host: the SSA's chain and other sizes of
// its architecture are recognized, their stages, floats and shared memory laid out within the budget; W^T in
// fragment order puts each element where the m16n8k16 B operand expects it; chains of another form and sizes the
// kernel is not compiled for are declined with the reason. The kernel itself is checked on the GPU
// (tests/gpu/test_cuda_sample_resident.cpp, tests/kernels/sample_resident_lab.cu).
#include <doctest/doctest.h>

#include <random>

#include "layers/sample_resident/row_tile_builder.h"
#include "tests/kernels/ssa_chain.h"

using namespace ie::sr;

namespace {

uint16_t low_bits(float f, Elem) { return static_cast<uint16_t>(static_cast<int>(f * 1000.f) & 0xffff); }

RtBuilt build_ok(const ChainSpec& spec, const RtBudget& budget = RtBudget{}) {
  RtBuilt b;
  std::string why;
  const bool ok = build_row_tile(spec, budget, &b, &why);
  INFO(why);
  REQUIRE(ok);
  return b;
}

std::string declined(const ChainSpec& spec, const RtBudget& budget = RtBudget{}) {
  RtBuilt b;
  std::string why;
  CHECK_FALSE(build_row_tile(spec, budget, &b, &why));
  return why;
}

}  // namespace

TEST_CASE("row-tile layout: the SSA's sizes, stages, parameters and shared memory") {
  std::mt19937 rng(3);
  const ChainSpec spec = ssa_chain(Shape{}, Elem::BF16, rng, low_bits);
  for (int warps : {8, 12, 16}) {
    RtBudget budget;
    budget.warps = warps, budget.mt = warps == 8 ? 2 : 1;
    const RtBuilt b = build_ok(spec, budget);
    const RtModel& m = b.model;
    CHECK(m.seq == 10);
    CHECK(m.slice == 32);
    CHECK(m.width == 64);
    CHECK(m.heads == 4);
    CHECK(m.head_dim == 16);
    CHECK(m.hidden == 128);
    CHECK(m.blocks == 2);
    CHECK(m.latent == 32);
    CHECK(m.spw == (budget.mt == 2 ? 3 : 1));  // whole samples of 10 rows in 16 or 32
    CHECK(m.tile == warps * m.spw);
    CHECK(m.mtiles == (m.tile + 15) / 16);
    // Stages: embedding, 2 per block, encoder, decoder, output; contiguous in the blob, every Linear inside its own.
    REQUIRE(m.stages == 8);
    int64_t off = 0;
    for (int i = 0; i < m.stages; ++i) {
      CHECK(m.stage_off[i] == off);
      CHECK(m.stage_bytes[i] % 512 == 0);
      CHECK(m.stage_bytes[i] <= m.slot_bytes);
      off += m.stage_bytes[i];
    }
    CHECK(off == static_cast<int64_t>(b.weights.size()));
    CHECK(b.weights.size() == 2u * (32 * 64 + 2 * (3 * 64 * 64 + 64 * 64 + 2 * 64 * 128) + 2 * 640 * 32 + 64 * 32));
    CHECK(m.stage_bytes[1] == 2 * (3 * 64 * 64 + 64 * 64));  // q | k | v and the projection
    CHECK(m.block[0].proj.w == 2 * 3 * 64 * 64);
    CHECK(m.block[1].fc2.w == 2 * 64 * 128);
    // Parameters: every float offset even (float2 loads) and inside the blob; RoPE tables of [seq][head_dim / 2].
    for (const RtNorm* n : {&m.embed_norm, &m.block[0].ln1, &m.block[1].ln2, &m.final_norm, &m.dec_norm}) {
      CHECK(n->gamma % 2 == 0);
      CHECK(n->beta + 64 <= m.floats_count);
      CHECK(n->eps == doctest::Approx(1e-5f));
    }
    CHECK(m.block[0].rope_cos >= 0);
    CHECK(b.floats[m.block[0].rope_cos + 1 * 8 + 0] == doctest::Approx(std::cos(1.0f)));
    CHECK(m.block[0].scale == doctest::Approx(0.25f));
    CHECK(m.embed_norm.act == 2);  // GELU after the embedding's LayerNorm
    CHECK(m.block[0].fc1.act == 2);
    CHECK(m.dec_norm.act == 2);
    // Shared memory: the regions in order and inside the budget; the encoder's sums over the residual streams.
    CHECK(m.slots >= m.floats_count * 4);
    CHECK(m.h_smem == m.slots + 2 * m.slot_bytes);
    CHECK(m.h_warp_bytes == budget.mt * 16 * 64 * 4);
    CHECK(m.scratch_smem == m.h_smem);
    CHECK(m.flat_smem >= m.h_smem + warps * m.h_warp_bytes);
    CHECK((m.flat_stride / 16) % 2 == 1);  // ldmatrix rows spread over the banks
    CHECK(m.flat_stride >= 640 * 2);
    CHECK(m.z_smem + 16 * m.z_stride <= m.bars_smem);
    CHECK(m.bars_smem % 8 == 0);  // the two slots' mbarriers, past every other region
    CHECK(m.bars_smem + 16 == m.smem_bytes);
    CHECK(m.smem_bytes <= budget.smem_bytes);
    for (int i = 0; i < m.stages; ++i) CHECK((m.stage_off[i] % 16 == 0 && m.stage_bytes[i] % 16 == 0));  // bulk copies
    CHECK(m.recon_output == 0);
    CHECK(m.latent_output == 1);
  }
}

TEST_CASE(
    "row-tile layout: the input as flat samples viewed as rows, an output through a view (as the engine makes them)") {
  std::mt19937 rng(4);
  ChainSpec c = ssa_chain(Shape{}, Elem::BF16, rng, low_bits);
  // x [1, 320] is the input; the embedding reads its view [10, 32]. The latent reaches its output through a view.
  ChainTensor flat;
  flat.name = "x_flat", flat.rows = 1, flat.cols = 320, flat.input = 0;
  c.tensors.push_back(flat);
  const int xf = static_cast<int>(c.tensors.size()) - 1;
  for (ChainTensor& t : c.tensors)
    if (t.input == 0 && t.name == "x") t.input = -1, t.alias_of = xf;
  int z = -1;
  for (size_t i = 0; i < c.tensors.size(); ++i)
    if (c.tensors[i].name == "latent") z = static_cast<int>(i);
  REQUIRE(z >= 0);
  ChainTensor out;
  out.name = "latent_out", out.rows = 1, out.cols = 32, out.alias_of = z, out.output = 1;
  c.tensors[z].output = -1;
  c.tensors.push_back(out);
  const RtModel m = build_ok(c).model;
  CHECK(m.seq == 10);
  CHECK(m.slice == 32);
  CHECK(m.latent_output == 1);
  CHECK(m.recon_output == 0);
}

TEST_CASE("row-tile layout: warp groups sharing a tile, one head each (row_heads.cuh)") {
  std::mt19937 rng(7);
  const ChainSpec spec = ssa_chain(Shape{}, Elem::BF16, rng, low_bits);
  for (int warps : {4, 8, 16}) {
    RtBudget budget;
    budget.warps = warps, budget.mt = 1, budget.group = 4;
    const RtModel m = build_ok(spec, budget).model;
    const int groups = warps / 4;
    CAPTURE(warps);
    CHECK(m.group == 4);
    CHECK(m.spw == 1);  // a sample of 10 rows in each group's 16
    CHECK(m.tile == groups);
    CHECK(m.h_smem == m.slots + 2 * m.slot_bytes);
    CHECK(m.h_warp_bytes == 16 * 64 * 4);  // one residual stream per group
    // Each group's attention output (4 k-steps) and MLP hidden (8 k-steps) as A fragments, 512 bytes a k-step.
    CHECK(m.y_smem >= m.h_smem + groups * m.h_warp_bytes);
    CHECK(m.u_smem >= m.y_smem + groups * 4 * 512);
    CHECK(m.flat_smem >= m.u_smem + groups * 8 * 512);
    CHECK(m.u_smem % 16 == 0);
    CHECK(m.bars_smem + 16 == m.smem_bytes);
    CHECK(m.smem_bytes <= budget.smem_bytes);
  }
  // Seven rows a sample: two samples share a group's tile.
  Shape s;
  s.seq = 7, s.slice = 16, s.hidden = 64, s.latent = 16;
  RtBudget budget;
  budget.warps = 8, budget.mt = 1, budget.group = 4;
  const RtModel seven = build_ok(ssa_chain(s, Elem::F16, rng, low_bits), budget).model;
  CHECK(seven.spw == 2);
  CHECK(seven.tile == 4);
  // A group is one head a warp over one tile, in whole groups.
  budget.group = 2;
  CHECK(declined(spec, budget).find("one head a warp") != std::string::npos);
  budget.group = 4, budget.mt = 2;
  CHECK(declined(spec, budget).find("one tile a warp group") != std::string::npos);
  budget.mt = 1, budget.warps = 6;
  CHECK(declined(spec, budget).find("whole groups") != std::string::npos);
}

TEST_CASE("row-tile layout: fragment order holds each lane's B operands of two products") {
  const int n = 32, k = 48;
  std::vector<uint16_t> wt(n * k);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < k; ++c) wt[r * k + c] = static_cast<uint16_t>(r * 100 + c);
  const std::vector<uint16_t> f = fragment_order(wt, n, k);
  REQUIRE(f.size() == wt.size());
  for (int j2 = 0; j2 < n / 16; ++j2)
    for (int kk = 0; kk < k / 16; ++kk)
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, q = lane % 4;
        const uint16_t* e = &f[((j2 * (k / 16) + kk) * 32 + lane) * 8];
        // b0, b1 of the tile of rows 16 j2 .. + 7, then of rows 16 j2 + 8 ..: k 2q, 2q + 1 and the same + 8.
        for (int half = 0; half < 2; ++half) {
          const int row = 16 * j2 + 8 * half + g;
          CHECK(e[4 * half + 0] == row * 100 + 16 * kk + 2 * q);
          CHECK(e[4 * half + 1] == row * 100 + 16 * kk + 2 * q + 1);
          CHECK(e[4 * half + 2] == row * 100 + 16 * kk + 8 + 2 * q);
          CHECK(e[4 * half + 3] == row * 100 + 16 * kk + 8 + 2 * q + 1);
        }
      }
}

TEST_CASE("row-tile layout: other sizes of the architecture, and what it declines") {
  std::mt19937 rng(5);
  Shape s;
  s.seq = 7, s.slice = 16, s.hidden = 64, s.blocks = 3, s.latent = 16;
  const RtModel seven = build_ok(ssa_chain(s, Elem::F16, rng, low_bits)).model;
  CHECK(seven.blocks == 3);
  CHECK(seven.spw == 4);  // 28 of a warp's 32 rows
  CHECK(seven.tile == 32);
  s = Shape{};
  s.seq = 1;
  const RtModel one = build_ok(ssa_chain(s, Elem::BF16, rng, low_bits)).model;
  CHECK(one.spw == 32);
  CHECK(one.mtiles == 16);

  s = Shape{};
  s.width = 128;
  CHECK(declined(ssa_chain(s, Elem::BF16, rng, low_bits)).find("width 128") != std::string::npos);
  s = Shape{};
  s.seq = 17;
  CHECK(declined(ssa_chain(s, Elem::BF16, rng, low_bits)).find("sequences of 17") != std::string::npos);
  s = Shape{};
  s.hidden = 48;
  CHECK(declined(ssa_chain(s, Elem::BF16, rng, low_bits)).find("hidden 48") != std::string::npos);
  CHECK(declined(ssa_chain(Shape{}, Elem::F32, rng, low_bits)).find("fp16 or bf16") != std::string::npos);
  // Too little shared memory for the tile.
  RtBudget small;
  small.smem_bytes = 64 * 1024;
  CHECK(declined(ssa_chain(Shape{}, Elem::BF16, rng, low_bits), small).find("shared memory") != std::string::npos);
  // Another form: the MLP's second Linear without its residual, or the chain cut after the encoder.
  ChainSpec c = ssa_chain(Shape{}, Elem::BF16, rng, low_bits);
  for (ChainOp& op : c.ops)
    if (op.op == OpCode::Linear && op.k == 128) op.residual = -1;
  CHECK(declined(c).find("the MLP's second Linear") != std::string::npos);
  c = ssa_chain(Shape{}, Elem::BF16, rng, low_bits);
  c.ops.resize(c.ops.size() - 3);
  CHECK(declined(c).find("not the row-tile form") != std::string::npos);
  // An activation the kernel does not have.
  c = ssa_chain(Shape{}, Elem::BF16, rng, low_bits);
  c.ops[1].act = 1;  // ReLU after the embedding's LayerNorm
  CHECK(declined(c).find("the embedding's LayerNorm") != std::string::npos);
  // A non-positive score scale (the kernel takes the softmax's maximum on unscaled scores).
  c = ssa_chain(Shape{}, Elem::BF16, rng, low_bits);
  for (ChainOp& op : c.ops)
    if (op.op == OpCode::Attention) op.scale = -0.25f;
  CHECK(declined(c).find("attention scale") != std::string::npos);
}

TEST_CASE("row-tile layout: GELU after every Linear is kept in the model (the kernel's out-of-line path)") {
  std::mt19937 rng(6);
  Shape s;
  s.gelu_everywhere = true;
  const RtModel m = build_ok(ssa_chain(s, Elem::BF16, rng, low_bits)).model;
  constexpr int kGeluAct = 2;  // dev::Act::Gelu
  for (const RtLinear* l : {&m.embed, &m.block[0].proj, &m.block[1].fc2, &m.enc, &m.dec, &m.out})
    CHECK(l->act == kGeluAct);
  CHECK(m.block[0].fc1.act == kGeluAct);
  CHECK(m.embed_norm.act == kGeluAct);
  CHECK(m.final_norm.act == 0);
}
