// The sample-resident program builder (layers/sample_resident/sample_resident_builder.h) on the host: the SSA's
// chain and other sizes of its architecture compile into programs whose shared-memory buffers fit the budget, never
// overlap while live, start on 128-byte lines and hold every view; weights too large for a slot run as column
// slices; shapes the kernel cannot take are declined with the reason. The kernel itself is checked on the GPU
// (tests/gpu/test_cuda_sample_resident.cpp, tests/kernels/sample_resident_lab.cu).
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "layers/sample_resident/head_builder.h"
#include "tests/kernels/head_chain.h"
#include "tests/kernels/ssa_chain.h"

using namespace ie::sr;

namespace {

uint16_t zero_bits(float, Elem) { return 0; }

Built build_ok(const ChainSpec& spec, const Budget& budget = Budget{}) {
  Built b;
  std::string why;
  const bool ok = build_program(spec, budget, &b, &why);
  INFO(why);
  REQUIRE(ok);
  return b;
}

int bytes_of(const View& v, int tile) { return tile * v.rows * v.cols * elem_bytes(v.elem); }

// Every shared view lies inside the program's memory, after the fixed region, on a 128-byte line; the inputs and
// output of one instruction overlap only where it runs in place (same offset and size).
void check_layout(const Program& p) {
  const int fixed = p.w_stage + 2 * p.w_slot_bytes;
  for (int i = 0; i < p.count; ++i) {
    const Instr& ins = p.instr[i];
    std::vector<const View*> views = {&ins.in, &ins.out};
    if (ins.residual.offset >= 0) views.push_back(&ins.residual);
    for (const View* v : views) {
      if (v->offset < 0) continue;
      CHECK(v->offset % 128 == 0);
      CHECK(v->offset >= fixed);
      CHECK(v->offset + bytes_of(*v, p.tile) <= p.smem_bytes);
    }
    if (ins.op == OpCode::Load || ins.op == OpCode::Store) continue;
    for (const View* v : {&ins.in, &ins.residual}) {
      if (v->offset < 0) continue;
      const bool same = v->offset == ins.out.offset && bytes_of(*v, p.tile) == bytes_of(ins.out, p.tile);
      const bool apart =
          v->offset + bytes_of(*v, p.tile) <= ins.out.offset || ins.out.offset + bytes_of(ins.out, p.tile) <= v->offset;
      CHECK((same || apart));
      if (same) CHECK((v == &ins.residual || ins.op == OpCode::LayerNorm || ins.op == OpCode::Softmax));
    }
    if (ins.op == OpCode::Linear) {
      CHECK(ins.w_bytes <= p.w_slot_bytes);
      CHECK(ins.nc % 16 == 0);
      CHECK(ins.col0 + ins.nc <= (ins.n + 15) / 16 * 16);  // N padded to whole 16-column groups
    }
  }
}

}  // namespace

TEST_CASE("sample-resident builder: the SSA's program fits, slices the large products and lays out its buffers") {
  std::mt19937 rng(3);
  const ChainSpec spec = ssa_chain(Shape{}, Elem::BF16, rng, zero_bits);
  const Built b = build_ok(spec);
  const Program& p = b.program;
  CHECK(p.tile == 16);
  CHECK(p.smem_bytes <= 227 * 1024);
  CHECK(p.w_slot_bytes <= 24 * 1024);
  CHECK(b.global_inputs == 1);
  CHECK(b.global_outputs == 2);
  CHECK(p.instr[0].op == OpCode::Load);
  CHECK(p.instr[p.count - 1].op == OpCode::Store);
  int loads = 0, stores = 0, slices = 0;
  std::map<int, int> columns;  // output offset -> columns covered by slices of one product
  for (int i = 0; i < p.count; ++i) {
    loads += p.instr[i].op == OpCode::Load;
    stores += p.instr[i].op == OpCode::Store;
    slices += p.instr[i].op == OpCode::Linear && p.instr[i].nc < p.instr[i].n;
  }
  CHECK(loads == 1);
  CHECK(stores == 2);
  CHECK(slices == 4);  // 640 -> 32 (40 KiB of W^T) and 32 -> 640, two slices each
  check_layout(p);
  // 2 x (32x64 + 2 x (64x192 + 64x64 + 64x128 + 128x64)) x 10 rows, attention, the 640 <-> 32 products, 64x32
  CHECK(chain_flops_per_sample(spec) == doctest::Approx(1525760.0));
}

TEST_CASE("sample-resident builder: other sizes of the architecture compile or are declined with the reason") {
  std::mt19937 rng(4);
  Shape s;
  s.seq = 12, s.slice = 16, s.width = 64, s.heads = 4, s.hidden = 64, s.blocks = 3, s.latent = 16;
  check_layout(build_ok(ssa_chain(s, Elem::F16, rng, zero_bits)).program);
  s = Shape{};
  s.seq = 7, s.width = 128, s.hidden = 256;  // 16 samples of 7 x 128 need more than a CTA's shared memory
  Built b;
  std::string why;
  CHECK_FALSE(build_program(ssa_chain(s, Elem::BF16, rng, zero_bits), Budget{}, &b, &why));
  CHECK(why.find("shared memory") != std::string::npos);
  s = Shape{};
  s.seq = 17;  // attention over more than one MMA tile of keys
  CHECK_FALSE(build_program(ssa_chain(s, Elem::BF16, rng, zero_bits), Budget{}, &b, &why));
  CHECK(why.find("sequence of 17") != std::string::npos);
  s = Shape{};
  s.slice = 24;  // K = 24
  CHECK_FALSE(build_program(ssa_chain(s, Elem::BF16, rng, zero_bits), Budget{}, &b, &why));
  CHECK(why.find("K = 24 must be a multiple of 16") != std::string::npos);
  CHECK_FALSE(build_program(ssa_chain(Shape{}, Elem::F32, rng, zero_bits), Budget{}, &b, &why));
  CHECK(why.find("fp16 or bf16") != std::string::npos);
}

TEST_CASE("sample-resident builder: a classifier head with N not a multiple of 16 and a softmax") {
  std::mt19937 rng(5);
  for (int classes : {10, 7, 100}) {
    CAPTURE(classes);
    const ChainSpec spec = head_chain(1024, 32, classes, Elem::BF16, rng, zero_bits);
    const Built b = build_ok(spec);
    const Program& p = b.program;
    check_layout(p);
    std::vector<OpCode> ops;
    for (int i = 0; i < p.count; ++i) ops.push_back(p.instr[i].op);
    // fc3's 64 KiB of W^T in two 16-column slices, fc4, the softmax, the float output
    CHECK(ops == std::vector<OpCode>{OpCode::Load, OpCode::Linear, OpCode::Linear, OpCode::Linear, OpCode::Softmax,
                                     OpCode::Store});
    const Instr& fc4 = p.instr[3];
    const int padded = (classes + 15) / 16 * 16;
    CHECK(fc4.n == classes);
    CHECK(fc4.nc == padded);
    CHECK(fc4.w_bytes == padded * 32 * 2);
    CHECK(fc4.out.elem == Elem::F32);  // no MMA reads the logits
    const Instr& softmax = p.instr[4];
    CHECK(softmax.in.offset == softmax.out.offset);  // in place over the logits
    CHECK(softmax.in.cols == classes);
    CHECK(p.io_elem[1] == Elem::F32);
    CHECK(b.weights.size() >= static_cast<size_t>(fc4.w + padded * 32));  // W^T with its zero rows
    CHECK(chain_flops_per_sample(spec) == doctest::Approx(2.0 * (1024 * 32 + 32 * classes)));
  }
  Built b;
  std::string why;
  CHECK_FALSE(build_program(head_chain(1024, 24, 10, Elem::BF16, rng, zero_bits), Budget{}, &b, &why));  // fc4's K
  CHECK(why.find("K = 24 must be a multiple of 16") != std::string::npos);
}

TEST_CASE("head builder: the conv net's head and other sizes are laid out; other chains are declined") {
  std::mt19937 rng(6);
  for (int classes : {10, 7}) {
    const int hidden = classes == 7 ? 36 : 32;  // 7 x 36 weights: W2^T padded to whole 16-byte chunks
    const ChainSpec spec = head_chain(1024, hidden, classes, Elem::BF16, rng, zero_bits);
    HeadBuilt b;
    std::string why;
    const bool ok = build_head(spec, 8, &b, &why);
    INFO(why);
    REQUIRE(ok);
    CHECK(b.model.k == 1024);
    CHECK(b.model.hidden == hidden);
    CHECK(b.model.classes == classes);
    CHECK(b.model.act == 1);
    CHECK(b.model.out == Elem::F32);
    CHECK(b.model.w2 % 8 == 0);  // 16-byte aligned
    CHECK(b.weights.size() == static_cast<size_t>(b.model.w2 + (classes * hidden + 7) / 8 * 8));
    CHECK(b.floats.size() == static_cast<size_t>(hidden + classes));
    CHECK(b.model.smem_bytes == 8 * (1024 * 2 + (hidden + classes) * 4) + (classes * hidden + 7) / 8 * 16);
    CHECK(b.model.x_f32 == 0);
  }
  HeadBuilt b;
  std::string why;
  CHECK_FALSE(build_head(head_chain(36, 32, 10, Elem::BF16, rng, zero_bits), 8, &b, &why));
  CHECK(why.find("K = 36") != std::string::npos);
  CHECK_FALSE(build_head(head_chain(1024, 272, 10, Elem::BF16, rng, zero_bits), 8, &b, &why));
  CHECK(why.find("hidden 272") != std::string::npos);
  // An input too wide for the CUDA-core head's tile is still laid out (the MMA head stages no input rows); the
  // tile's bytes say so to the caller.
  REQUIRE(build_head(head_chain(8192, 32, 10, Elem::BF16, rng, zero_bits), 32, &b, &why));
  CHECK(b.model.smem_bytes > 227 * 1024);
  CHECK_FALSE(build_head(ssa_chain(Shape{}, Elem::BF16, rng, zero_bits), 8, &b, &why));
  CHECK(why.find("not Linear, Linear, Softmax") != std::string::npos);
}

TEST_CASE("sample-resident swizzle: a bijection inside each 128-byte line") {
  for (uint32_t line = 0; line < 64; ++line) {
    std::set<uint32_t> seen;
    for (uint32_t b = 0; b < 128; ++b) {
      const uint32_t o = swizzle(line * 128 + b);
      CHECK(o / 128 == line);
      seen.insert(o);
    }
    CHECK(seen.size() == 128);
  }
}
