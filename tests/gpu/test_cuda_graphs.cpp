// CUDA graphs: a plan on the cuda backends runs step by step once, records its steps on the second run and
// replays the recording after; the replayed outputs equal the step-by-step ones bit for bit (same kernels, same
// order) for fresh inputs on every run, in fp32 and bf16, for both models; Options::cuda_graphs = false (the
// CLI's --no-graph) and per-step observers keep the step-by-step path; a new input shape gets its own plan and
// recording.
#include <cstring>

#include "engine/backend/backend.h"
#include "engine/executor/executor.h"
#include "engine/loader/onnx_loader.h"
#include "engine/planner/plan.h"
#include "gpu_test_util.h"

namespace ie::test {
namespace {

struct ModelCase {
  const char* file;
  Shape x;
};

std::unique_ptr<Plan> plan_for(const Graph& g, const Shape& x, Precision p, bool graphs) {
  PlanOptions options;
  options.precision = p;
  options.graphs = graphs;
  Options o;
  o.precision = p;
  return build_plan(g, {{"x", x}}, make_backend(kernel_set::kCuda, o), options);
}

}  // namespace

TEST_CASE("cuda graphs: recorded on the second run, replayed after, equal to step by step") {
  IE_REQUIRE_GPU();
  for (const ModelCase& m :
       {ModelCase{"weights/ssa_dynamo.onnx", {37, 320}}, ModelCase{"weights/convnet.onnx", {5, 1, 86, 86}}})
    for (Precision p : {Precision::fp32, Precision::bf16}) {
      INFO(m.file, " in ", precision_name(p));
      const Graph g = load_onnx(std::string(IE_SOURCE_DIR) + "/" + m.file);
      auto replayed = plan_for(g, m.x, p, true);
      auto stepwise = plan_for(g, m.x, p, false);
      for (int run = 0; run < 4; ++run) {
        const Tensor x = random_uniform(m.x, 700 + run, 0.f, 1.f);
        load_inputs(*replayed, {{"x", x}});
        run_steps(*replayed, {});
        const auto got = fetch_outputs(*replayed);
        load_inputs(*stepwise, {{"x", x}});
        run_steps(*stepwise, {});
        const auto want = fetch_outputs(*stepwise);
        REQUIRE(got.size() == want.size());
        for (size_t i = 0; i < got.size(); ++i) CHECK(bitwise_equal(got[i], want[i]));
        CHECK((replayed->recording != nullptr) == (run >= 1));
        CHECK_FALSE(replayed->graph_off);
        CHECK(stepwise->recording == nullptr);
      }
      // An observer sees every step: that run goes step by step and leaves the recording in place.
      int seen = 0;
      load_inputs(*replayed, {{"x", random_uniform(m.x, 800, 0.f, 1.f)}});
      run_steps(*replayed, [&](const StepEvent&) { ++seen; });
      CHECK(seen == static_cast<int>(replayed->steps.size()));
      CHECK(replayed->recording != nullptr);
    }
}

TEST_CASE("cuda graphs: a session replays per input shape and matches --no-graph") {
  IE_REQUIRE_GPU();
  Options on, off;
  on.backend = off.backend = kernel_set::kCuda;
  off.cuda_graphs = false;
  const std::string path = std::string(IE_SOURCE_DIR) + "/weights/ssa.onnx";
  Session a = Engine::load(path, on).create_session();
  Session b = Engine::load(path, off).create_session();
  for (int64_t batch : {3, 5, 3, 5, 3}) {
    INFO("batch ", batch);
    const Tensor x = random_uniform({batch, 320}, 900 + static_cast<unsigned>(batch), 0.f, 1.f);
    const auto got = a.run_ordered({{"x", x}});
    const auto want = b.run_ordered({{"x", x}});
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(bitwise_equal(got[i], want[i]));
  }
}

}  // namespace ie::test
