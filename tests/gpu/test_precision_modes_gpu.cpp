// The cuda backend in every precision mode against the CPU backend's fp32, with the accuracy gates of each mode:
// relative L2 <= 1e-5 (fp32), 1e-3 (tf32), 1e-2 (fp16, bf16) on fresh random inputs; on the 10,000 Fashion-MNIST
// test images accuracy >= 0.89 and top-1 agreement with fp32 >= 99.9%.
#include <algorithm>
#include <filesystem>

#include "../models/reference_data.h"
#include "engine/api/model_config.h"
#include "engine/backend/kernel_sets.h"
#include "engine/io/idx.h"
#include "gpu_test_util.h"

using namespace ie;

namespace {

double rel_l2_gate(Precision p) {
  switch (p) {
    case Precision::fp32:
      return 1e-5;
    case Precision::tf32:
      return 1e-3;
    default:
      return 1e-2;
  }
}

Options on(const std::string& backend, Precision p = Precision::fp32) {
  Options o;
  o.backend = backend;
  o.precision = p;
  return o;
}

// The test images where this machine has them: Debian's package, or the copy gpu_run.sh carries.
std::string fashion_mnist_dir() {
  for (const char* dir : {"/usr/share/datasets/fashion-mnist", ".device/data"})
    if (std::filesystem::exists(std::string(dir) + "/t10k-images-idx3-ubyte.gz")) return dir;
  return "";
}

}  // namespace

TEST_CASE("GPU: the cuda backend in every precision mode meets its gate against the CPU's fp32") {
  IE_REQUIRE_GPU();
  for (auto [file, shape] : {std::pair{"convnet.onnx", std::vector<int64_t>{257, 1, 86, 86}},
                             std::pair{"convnet_dynamo.onnx", std::vector<int64_t>{7, 1, 86, 86}},
                             std::pair{"ssa.onnx", std::vector<int64_t>{1001, 320}},
                             std::pair{"ssa_dynamo.onnx", std::vector<int64_t>{1, 320}}}) {
    Tensor x = test::random_uniform(shape, 123, 0.f, 1.f);
    auto want = Engine::load(test::weights_path(file), on(kernel_set::kCpu)).create_session().run_ordered({{"x", x}});
    for (Precision p : all_precisions()) {
      CAPTURE(file);
      CAPTURE(precision_name(p));
      auto got =
          Engine::load(test::weights_path(file), on(kernel_set::kCuda, p)).create_session().run_ordered({{"x", x}});
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        REQUIRE(got[i].dtype() == DType::Float32);
        auto d = test::diff(got[i], want[i]);
        MESSAGE(file, " ", precision_name(p), " output ", i, ": rel L2 ", d.rel_l2, ", max abs ", d.max_abs);
        CHECK(d.rel_l2 <= rel_l2_gate(p));
      }
    }
  }
}

TEST_CASE("GPU: the conv net in every precision mode on the 10,000 test images") {
  IE_REQUIRE_GPU();
  const std::string dir = fashion_mnist_dir();
  if (dir.empty()) {
    MESSAGE("no Fashion-MNIST test images on this machine: skipped");
    return;
  }
  Tensor images = read_idx(dir + "/t10k-images-idx3-ubyte.gz");
  Tensor labels = read_idx(dir + "/t10k-labels-idx1-ubyte.gz");
  REQUIRE(images.dim(0) == 10000);
  ModelConfig cfg = load_model_config(test::config_path("convnet.yaml"));
  auto classes = [&](Precision p) {
    Session s = Engine::load(cfg, on(kernel_set::kCuda, p), true).create_session();
    std::vector<int64_t> best;
    for (int64_t b = 0; b < 10000; b += 2500) {
      Tensor probs = s.run({{"images", images.slice_rows(b, b + 2500)}}).at("probs");
      for (int64_t i = 0; i < 2500; ++i) {
        const float* row = probs.data_as<float>() + i * 10;
        best.push_back(std::max_element(row, row + 10) - row);
      }
    }
    return best;
  };
  const std::vector<int64_t> fp32 = classes(Precision::fp32);
  for (Precision p : all_precisions()) {
    CAPTURE(precision_name(p));
    std::vector<int64_t> got = p == Precision::fp32 ? fp32 : classes(p);
    int64_t correct = 0, agree = 0;
    for (int64_t i = 0; i < 10000; ++i) {
      correct += got[i] == labels.data_as<uint8_t>()[i];
      agree += got[i] == fp32[i];
    }
    MESSAGE(precision_name(p), ": accuracy ", correct / 10000.0, ", top-1 agreement with fp32 ", agree / 10000.0);
    CHECK(correct >= 8900);
    CHECK(agree >= 9990);
  }
}
