// Exports of both architectures made elsewhere (another PyTorch, other weights, both exporter forms) must match
// onnxruntime's outputs to 1e-4 relative: nothing in the loader or planner may be tuned to our own files.
#include <doctest/doctest.h>

#include <cmath>

#include "engine/io/npy.h"
#include "reference_data.h"

using namespace ie;

namespace {
constexpr double kRelative = 1e-4;

std::string foreign(const std::string& name) { return std::string(IE_SOURCE_DIR) + "/tests/data/foreign/" + name; }
}  // namespace

TEST_CASE("foreign exports match onnxruntime on the CPU backend") {
  struct Case {
    const char* model;
    const char* input;
    std::vector<const char*> outputs;
  };
  for (const Case& c : {Case{"convnet", "convnet_x.npy", {"probs"}}, Case{"convnet_dynamo", "convnet_x.npy", {"probs"}},
                        Case{"ssa", "ssa_x.npy", {"recon", "latent"}}, Case{"ssa_dynamo", "ssa_x.npy", {"recon", "latent"}}}) {
    CAPTURE(c.model);
    Options o;
    o.backend = "cpu";
    Engine engine = Engine::load(foreign(std::string(c.model) + ".onnx"), o);
    Session s = engine.create_session();
    auto out = s.run({{engine.inputs()[0].name, read_npy(foreign(c.input))}});
    for (const char* name : c.outputs) {
      CAPTURE(name);
      Tensor want = read_npy(foreign(std::string(c.model) + "_ort_" + name + ".npy"));
      auto d = test::diff(out.at(name), want);
      double scale = 0;
      for (int64_t i = 0; i < want.numel(); ++i) scale = std::max(scale, std::abs((double)want.data_as<float>()[i]));
      CHECK(d.rel_l2 <= kRelative);
      CHECK(d.max_abs <= kRelative * scale);
    }
  }
}
