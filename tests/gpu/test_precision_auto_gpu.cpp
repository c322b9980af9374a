// `--precision auto` (tools/common/precision_choice.h) on the cuda backend: both models take the fastest mode whose
// accuracy gate holds on a sample against the backend's own fp32 (fp16, the first tried), and every mode tried is
// recorded with its figures; judged against the CPU backend's fp32 instead (what `infer` does on a GPU), the same.
#include "../models/reference_data.h"
#include "engine/backend/kernel_sets.h"
#include "gpu_test_util.h"
#include "tools/common/precision_choice.h"

using namespace ie;

namespace {

cli::PrecisionChoice choose_for(const std::string& model, const std::map<std::string, Tensor>& sample,
                                bool classifier) {
  auto load = [&](Precision p) {
    Options o;
    o.backend = kernel_set::kCuda;
    o.precision = p;
    return Engine::load(test::weights_path(model), o);
  };
  return cli::choose_precision(kernel_set::kCuda, load, sample, classifier);
}

}  // namespace

TEST_CASE("GPU: auto precision picks fp16 for both models, with the figures that chose it") {
  IE_REQUIRE_GPU();
  const cli::PrecisionChoice conv =
      choose_for("convnet.onnx", {{"x", test::random_uniform({257, 1, 86, 86}, 3, 0.f, 1.f)}}, true);
  CHECK(conv.precision == Precision::fp16);
  CHECK(conv.engine != nullptr);
  INFO(conv.summary);
  CHECK(conv.summary.rfind("fp16 (auto: rel L2 ", 0) == 0);
  CHECK(conv.summary.find("top-1 agreeing") != std::string::npos);
  REQUIRE(conv.json.size() == 1);
  CHECK(conv.json[0]["pass"].get<bool>());
  CHECK(conv.json[0]["rel_l2"]["probs"].get<double>() <= 1e-2);
  CHECK(conv.json[0]["top1_agreement"].get<double>() >= 0.999);

  const cli::PrecisionChoice ssa =
      choose_for("ssa.onnx", {{"x", test::random_uniform({100, 320}, 4, -0.2f, 1.2f)}}, false);
  CHECK(ssa.precision == Precision::fp16);
  REQUIRE(ssa.json.size() == 1);
  CHECK(ssa.json[0]["rel_l2"]["recon"].get<double>() <= 1e-2);
  CHECK(ssa.json[0]["rel_l2"]["latent"].get<double>() <= 1e-2);
  // The chosen engine runs the sample as the choice did.
  const std::vector<Tensor> out = ssa.engine->create_session().run_ordered({{"x", test::random_uniform({3, 320}, 5)}});
  CHECK(out.size() == 2);
}

TEST_CASE("GPU: auto precision judged against the CPU's fp32 picks fp16 and says so") {
  IE_REQUIRE_GPU();
  auto load = [&](Precision p) {
    Options o;
    o.backend = kernel_set::kCuda;
    o.precision = p;
    return Engine::load(test::weights_path("convnet.onnx"), o);
  };
  const cli::Reference cpu{[] {
                             Options o;
                             o.backend = "cpu";
                             return Engine::load(test::weights_path("convnet.onnx"), o);
                           },
                           "cpu"};
  const cli::PrecisionChoice conv = cli::choose_precision(
      kernel_set::kCuda, load, {{"x", test::random_uniform({301, 1, 86, 86}, 6, 0.f, 1.f)}}, true, nullptr, cpu);
  INFO(conv.summary);
  CHECK(conv.precision == Precision::fp16);
  CHECK(conv.summary.find("against cpu's fp32") != std::string::npos);
  REQUIRE(conv.json.size() == 1);
  CHECK(conv.json[0]["reference"].get<std::string>() == "cpu fp32");
  CHECK(conv.json[0]["rel_l2"]["probs"].get<double>() <= 1e-2);
  CHECK(conv.engine->create_session().run_ordered({{"x", test::random_uniform({2, 1, 86, 86}, 7)}}).size() == 1);
}
