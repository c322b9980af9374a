// The SSA's chain of steps (shared/specs/models.md) as a sample-resident chain spec at any size of the
// architecture, with random weights: the kernel's lab and the builder's unit test build the same chains.
#pragma once

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "layers/sample_resident/sample_resident_builder.h"

namespace ie::sr {

constexpr int kGelu = 2;  // dev::Act::Gelu

struct Shape {
  int seq = 10, slice = 32, width = 64, heads = 4, hidden = 128, blocks = 2, latent = 32;
  // GELU after every Linear (the embedding, the projections, fc2, the encoder, the decoder, the output), not only
  // after fc1 and two LayerNorms: the row-tile kernel's out-of-line activation path.
  bool gelu_everywhere = false;
};

// The SSA's chain (models.md) at shape `s` with random weights (to_bits: a float in a 16-bit compute type; unused
// for F32).
inline ChainSpec ssa_chain(const Shape& s, Elem compute, std::mt19937& rng,
                           const std::function<uint16_t(float, Elem)>& to_bits) {
  ChainSpec c;
  c.compute = compute;
  auto tensor = [&](const std::string& name, int rows, int cols, int alias = -1) {
    ChainTensor t;
    t.name = name, t.rows = rows, t.cols = cols, t.alias_of = alias;
    c.tensors.push_back(t);
    return static_cast<int>(c.tensors.size()) - 1;
  };
  auto uniform = [&](int n, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
  };
  // W^T [n][k] into op.w in the compute type's bits, or op.w32 in F32.
  auto weights = [&](ChainOp& op, int n, int k) {
    const float a = 1.f / std::sqrt(static_cast<float>(k));
    for (float x : uniform(n * k, -a, a))
      if (compute == Elem::F32)
        op.w32.push_back(x);
      else
        op.w.push_back(to_bits(x, compute));
  };
  auto linear = [&](int in, int out, int k, int n, int act, int residual = -1) {
    ChainOp op;
    op.op = OpCode::Linear, op.in = in, op.out = out, op.k = k, op.n = n, op.act = act, op.residual = residual;
    weights(op, n, k);
    op.bias = uniform(n, -0.1f, 0.1f);
    c.ops.push_back(op);
  };
  auto norm = [&](int in, int out, int cols, int act) {
    ChainOp op;
    op.op = OpCode::LayerNorm, op.in = in, op.out = out, op.act = act;
    op.gamma = uniform(cols, 0.5f, 1.5f);
    op.beta = uniform(cols, -0.2f, 0.2f);
    c.ops.push_back(op);
  };
  const int gelu = kGelu, more = s.gelu_everywhere ? kGelu : 0;
  const int x = tensor("x", s.seq, s.slice);
  c.tensors[x].input = 0;
  int e = tensor("embed", s.seq, s.width);
  linear(x, e, s.slice, s.width, more);
  int h = tensor("h0", s.seq, s.width);
  norm(e, h, s.width, gelu);
  for (int b = 0; b < s.blocks; ++b) {
    const std::string p = "b" + std::to_string(b) + "/";
    const int a = tensor(p + "ln1", s.seq, s.width);
    norm(h, a, s.width, 0);
    const int y = tensor(p + "att", s.seq, s.width);
    ChainOp att;
    att.op = OpCode::Attention, att.in = a, att.out = y, att.k = s.width, att.n = s.width;
    att.heads = s.heads, att.head_dim = s.width / s.heads;
    att.scale = 1.f / std::sqrt(static_cast<float>(att.head_dim));
    weights(att, 3 * s.width, s.width);
    att.bias = uniform(3 * s.width, -0.1f, 0.1f);
    const int half = att.head_dim / 2;
    for (int pos = 0; pos < s.seq; ++pos)
      for (int i = 0; i < half; ++i) {
        const double angle = pos * std::pow(10000.0, -2.0 * i / att.head_dim);
        att.cos.push_back(static_cast<float>(std::cos(angle)));
        att.sin.push_back(static_cast<float>(std::sin(angle)));
      }
    c.ops.push_back(att);
    const int h1 = tensor(p + "h1", s.seq, s.width);
    linear(y, h1, s.width, s.width, more, h);
    const int a2 = tensor(p + "ln2", s.seq, s.width);
    norm(h1, a2, s.width, 0);
    const int f = tensor(p + "fc1", s.seq, s.hidden);
    linear(a2, f, s.width, s.hidden, gelu);
    const int h2 = tensor(p + "h2", s.seq, s.width);
    linear(f, h2, s.hidden, s.width, more, h1);
    h = h2;
  }
  const int n = tensor("enc_norm", s.seq, s.width);
  norm(h, n, s.width, 0);
  const int flat = tensor("flat", 1, s.seq * s.width, n);
  const int z = tensor("latent", 1, s.latent);
  c.tensors[z].output = 1;
  linear(flat, z, s.seq * s.width, s.latent, more);
  const int up = tensor("from_latent", 1, s.seq * s.width);
  linear(z, up, s.latent, s.seq * s.width, more);
  const int upv = tensor("from_latent/view", s.seq, s.width, up);
  const int d = tensor("dec", s.seq, s.width);
  norm(upv, d, s.width, gelu);
  const int r = tensor("out", s.seq, s.slice);
  linear(d, r, s.width, s.slice, more);
  const int recon = tensor("recon", 1, s.seq * s.slice, r);
  c.tensors[recon].output = 0;
  return c;
}

}  // namespace ie::sr
