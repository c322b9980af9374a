// Both models, both export forms, on the CPU backend against PyTorch's float64 outputs:
// max abs error <= 1e-4 and relative L2 error <= 1e-5 (float32 arithmetic against a float64 reference).
#include <doctest/doctest.h>

#include "engine/api/model_config.h"
#include "engine/io/idx.h"
#include "reference_data.h"

using namespace ie;
using ie::test::diff;
using ie::test::reference;

namespace {
constexpr double kMaxAbs = 1e-4;
constexpr double kRelL2 = 1e-5;

Options cpu() {
  Options o;
  o.backend = "cpu";
  return o;
}
}  // namespace

TEST_CASE("conv net, both export forms, against PyTorch float64") {
  for (const char* file : {"convnet.onnx", "convnet_dynamo.onnx"}) {
    CAPTURE(file);
    Session s = Engine::load(test::weights_path(file), cpu()).create_session();
    auto out = s.run({{"x", reference("convnet_input.npy")}});
    auto d = diff(out.at("probs"), reference("convnet_probs_fp64.npy"));
    CHECK(d.max_abs <= kMaxAbs);
    CHECK(d.rel_l2 <= kRelL2);
  }
}

TEST_CASE("SSA, both export forms, against PyTorch float64") {
  for (const char* file : {"ssa.onnx", "ssa_dynamo.onnx"}) {
    CAPTURE(file);
    Session s = Engine::load(test::weights_path(file), cpu()).create_session();
    auto out = s.run({{"x", reference("ssa_input.npy")}});
    for (const auto& output : {std::pair{"recon", "ssa_recon_fp64.npy"}, std::pair{"latent", "ssa_latent_fp64.npy"}}) {
      const char *name = output.first, *ref = output.second;
      CAPTURE(name);
      auto d = diff(out.at(name), reference(ref));
      CHECK(d.max_abs <= kMaxAbs);
      CHECK(d.rel_l2 <= kRelL2);
    }
  }
}

TEST_CASE("conv net with the config's pre-processing run by the engine on raw uint8 images") {
  ModelConfig cfg = load_model_config(test::config_path("convnet.yaml"));
  for (bool dynamo : {false, true}) {
    CAPTURE(dynamo);
    if (dynamo) cfg.onnx = cfg.onnx_dynamo;
    Session s = Engine::load(cfg, cpu(), true).create_session();
    auto out = s.run({{"images", reference("convnet_input_raw.npy")}});
    // PyTorch pre-processed in float32 too; the resize adds a few ulps on top of the model's error.
    auto d = diff(out.at("probs"), reference("convnet_probs_fp64.npy"));
    CHECK(d.max_abs <= kMaxAbs);
    CHECK(d.rel_l2 <= kRelL2);
  }
}

TEST_CASE("conv net on the 10,000 Fashion-MNIST test images: accuracy and agreement with PyTorch") {
  ModelConfig cfg = load_model_config(test::config_path("convnet.yaml"));
  Session s = Engine::load(cfg, cpu(), true).create_session();
  Tensor images = read_idx("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz");
  Tensor labels = read_idx("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz");
  Tensor torch_pred = reference("convnet_test_predictions.npy");
  REQUIRE(images.dim(0) == 10000);
  int64_t correct = 0, agree = 0;
  for (int64_t b = 0; b < 10000; b += 1000) {
    Tensor probs = s.run({{"images", images.slice_rows(b, b + 1000)}}).at("probs");
    for (int64_t i = 0; i < 1000; ++i) {
      const float* row = probs.data_as<float>() + i * 10;
      int64_t best = std::max_element(row, row + 10) - row;
      correct += best == labels.data_as<uint8_t>()[b + i];
      agree += best == torch_pred.data_as<int64_t>()[b + i];
    }
  }
  double accuracy = correct / 10000.0;
  MESSAGE("accuracy " << accuracy << ", agreement with PyTorch " << agree / 10000.0);
  CHECK(accuracy >= 0.89);
  CHECK(accuracy == doctest::Approx(test::manifest()["figures"]["convnet_test_accuracy_fp64"].get<double>()).epsilon(0.002));
  CHECK(agree >= 9990);
}

TEST_CASE("SSA reconstruction MSE on 1,000 spectra matches PyTorch's within 1e-4 relative") {
  for (const char* file : {"ssa.onnx", "ssa_dynamo.onnx"}) {
    CAPTURE(file);
    Session s = Engine::load(test::weights_path(file), cpu()).create_session();
    Tensor x = reference("ssa_mse_input.npy");
    Tensor recon = s.run({{"x", x}}).at("recon");
    double sum = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      double d = static_cast<double>(recon.data_as<float>()[i]) - x.data_as<float>()[i];
      sum += d * d;
    }
    double mse = sum / static_cast<double>(x.numel());
    double torch_mse = test::manifest()["figures"]["ssa_mse_fp64"].get<double>();
    MESSAGE("mse " << mse << " vs PyTorch " << torch_mse);
    CHECK(std::abs(mse - torch_mse) <= 1e-4 * torch_mse);
  }
}
