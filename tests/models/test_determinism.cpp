// Determinism on the CPU backend: the same plan run twice, and a second session of the same engine, give outputs
// equal bit for bit, for both models in both export forms, on fresh inputs of an odd batch, with 1 and 2 worker
// threads. (No CPU kernel accumulates with atomics or in an order that depends on scheduling; the GPU side is
// covered by the CUDA graph tests, which compare two plans of the same kernels bit for bit.)
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "reference_data.h"

using namespace ie;

namespace {

Tensor uniform(std::vector<int64_t> shape, unsigned seed) {
  Tensor t(DType::Float32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = u(rng);
  return t;
}

}  // namespace

TEST_CASE("determinism: two runs and two sessions of one engine give bitwise-equal outputs on the CPU") {
  struct Model {
    const char* file;
    std::vector<int64_t> x;
  };
  for (const Model& m : {Model{"convnet.onnx", {7, 1, 86, 86}}, Model{"convnet_dynamo.onnx", {7, 1, 86, 86}},
                         Model{"ssa.onnx", {37, 320}}, Model{"ssa_dynamo.onnx", {37, 320}}})
    for (int threads : {1, 2}) {
      CAPTURE(m.file);
      CAPTURE(threads);
      Options o;
      o.backend = "cpu";
      o.threads = threads;
      const Engine engine = Engine::load(test::weights_path(m.file), o);
      Session first = engine.create_session();
      Session second = engine.create_session();
      for (unsigned seed : {1u, 2u}) {
        const Tensor x = uniform(m.x, seed);
        const auto a = first.run_ordered({{"x", x}});
        const auto b = first.run_ordered({{"x", x}});
        const auto c = second.run_ordered({{"x", x}});
        REQUIRE(a.size() == b.size());
        REQUIRE(a.size() == c.size());
        for (size_t i = 0; i < a.size(); ++i) {
          CHECK(bitwise_equal(a[i], b[i]));
          CHECK(bitwise_equal(a[i], c[i]));
        }
      }
    }
}
