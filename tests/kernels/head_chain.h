// A classifier head as a sample-resident chain spec with random weights: [1, K] in the compute type -> Linear +
// ReLU -> [1, H] -> Linear -> [1, C] -> Softmax -> float output (the conv net's flatten -> fc3 -> fc4 -> softmax at
// K 1024, H 32, C 10). The builder's unit test and tests/kernels/head_chain_lab.cu build the same chains.
#pragma once

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "layers/sample_resident/sample_resident_builder.h"

namespace ie::sr {

inline ChainSpec head_chain(int k, int hidden, int classes, Elem compute, std::mt19937& rng,
                            const std::function<uint16_t(float, Elem)>& to_bits) {
  ChainSpec c;
  c.compute = compute;
  c.tensors = {
      {"x", 1, k, -1, 0, -1, compute}, {"h", 1, hidden}, {"logits", 1, classes}, {"probs", 1, classes, -1, -1, 0}};
  auto weights = [&](int n, int kk) {  // W^T [n][kk], uniform in +-2/sqrt(kk): logits of a few units
    std::uniform_real_distribution<float> d(-2.f / std::sqrt(static_cast<float>(kk)),
                                            2.f / std::sqrt(static_cast<float>(kk)));
    std::vector<uint16_t> w(static_cast<size_t>(n) * kk);
    for (auto& v : w) v = to_bits(d(rng), compute);
    return w;
  };
  auto bias = [&](int n) {
    std::uniform_real_distribution<float> d(-0.3f, 0.3f);
    std::vector<float> b(n);
    for (auto& v : b) v = d(rng);
    return b;
  };
  ChainOp fc3;
  fc3.in = 0, fc3.out = 1, fc3.k = k, fc3.n = hidden, fc3.act = 1;  // dev::Act::Relu
  fc3.w = weights(hidden, k), fc3.bias = bias(hidden);
  ChainOp fc4;
  fc4.in = 1, fc4.out = 2, fc4.k = hidden, fc4.n = classes;
  fc4.w = weights(classes, hidden), fc4.bias = bias(classes);
  ChainOp softmax;
  softmax.op = OpCode::Softmax, softmax.in = 2, softmax.out = 3;
  c.ops = {fc3, fc4, softmax};
  return c;
}

}  // namespace ie::sr
