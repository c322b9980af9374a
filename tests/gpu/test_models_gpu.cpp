// Both models, both export forms, end to end on the CUDA reference path against PyTorch's float64 outputs,
// with the tolerances of the CPU model tests (fp32 with TF32 off): max abs <= 1e-4, relative L2 <= 1e-5.
#include "../models/reference_data.h"
#include "engine/api/model_config.h"
#include "gpu_test_util.h"

using namespace ie;

namespace {
constexpr double kMaxAbs = 1e-4;
constexpr double kRelL2 = 1e-5;

Options gpu() {
  Options o;
  o.backend = "cuda-reference";
  return o;
}
}  // namespace

TEST_CASE("GPU: conv net, both export forms, raw images through the engine's pre-processing") {
  IE_REQUIRE_GPU();
  ModelConfig cfg = load_model_config(test::config_path("convnet.yaml"));
  for (bool dynamo : {false, true}) {
    CAPTURE(dynamo);
    if (dynamo) cfg.onnx = cfg.onnx_dynamo;
    Session raw = Engine::load(cfg, gpu(), true).create_session();
    auto d = test::diff(raw.run({{"images", test::reference("convnet_input_raw.npy")}}).at("probs"),
                        test::reference("convnet_probs_fp64.npy"));
    CHECK(d.max_abs <= kMaxAbs);
    CHECK(d.rel_l2 <= kRelL2);
    Session plain = Engine::load(cfg.onnx, gpu()).create_session();
    d = test::diff(plain.run({{"x", test::reference("convnet_input.npy")}}).at("probs"),
                   test::reference("convnet_probs_fp64.npy"));
    CHECK(d.max_abs <= kMaxAbs);
    CHECK(d.rel_l2 <= kRelL2);
  }
}

TEST_CASE("GPU: SSA, both export forms") {
  IE_REQUIRE_GPU();
  for (const char* file : {"ssa.onnx", "ssa_dynamo.onnx"}) {
    CAPTURE(file);
    Session s = Engine::load(test::weights_path(file), gpu()).create_session();
    auto out = s.run({{"x", test::reference("ssa_input.npy")}});
    for (auto [name, ref] : {std::pair{"recon", "ssa_recon_fp64.npy"}, std::pair{"latent", "ssa_latent_fp64.npy"}}) {
      CAPTURE(name);
      auto d = test::diff(out.at(name), test::reference(ref));
      CHECK(d.max_abs <= kMaxAbs);
      CHECK(d.rel_l2 <= kRelL2);
    }
  }
}

TEST_CASE("GPU: large batches agree with the CPU backend on fresh random inputs") {
  IE_REQUIRE_GPU();
  for (auto [file, shape] : {std::pair{"convnet.onnx", std::vector<int64_t>{257, 1, 86, 86}},
                             std::pair{"ssa_dynamo.onnx", std::vector<int64_t>{1001, 320}}}) {
    CAPTURE(file);
    Tensor x = test::random_uniform(shape, 99, 0.f, 1.f);
    Options cpu;
    cpu.backend = "cpu";
    auto want = Engine::load(test::weights_path(file), cpu).create_session().run_ordered({{"x", x}});
    auto got = Engine::load(test::weights_path(file), gpu()).create_session().run_ordered({{"x", x}});
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(test::tolerance_ratio(got[i], want[i], 1e-5, 1e-4) <= 1.0);
  }
}
