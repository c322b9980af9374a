// ie.SampleResident on the cuda backend: both exports of the SSA run as one step in fp16 and bf16 and match the
// CPU backend's fp32 within the modes' gate (relative L2 <= 1e-2) at batches 1, 7, 1000 and 10001, on the
// row-tile kernel (the default for this form) and on the interpreting kernel (IE_SAMPLE_RESIDENT=always); the
// interpreter outside the batches where it wins declines with its reason and the parts run; in fp32 and tf32 no
// chain is formed. The kernels' own checks at other shapes are in tests/kernels/sample_resident_lab.cu.
#include "../models/reference_data.h"
#include "engine/backend/backend.h"
#include "engine/backend/kernel_sets.h"
#include "engine/loader/onnx_loader.h"
#include "engine/planner/plan.h"
#include "gpu_test_util.h"

using namespace ie;

namespace {

// The plan's ie.SampleResident step: its kernel set, or "(none)"; `declined` receives the reasons its parts carry.
std::string chain_step(const Graph& g, int64_t batch, Precision p, std::string* declined = nullptr) {
  PlanOptions options;
  options.precision = p;
  auto plan = build_plan(g, {{"x", {batch, 320}}}, make_backend(kernel_set::kCuda, Options{}), options);
  for (auto& step : plan->steps) {
    if (step.node.op_type == "SampleResident") return step.kernel_set;
    for (auto& d : step.declined)
      if (declined && d.find("SampleResident") != std::string::npos) *declined += d + "\n";
  }
  return "(none)";
}

double rel_l2(const Tensor& got, const Tensor& want) {
  const auto d = test::diff(got, want);
  return d.rel_l2;
}

}  // namespace

TEST_CASE("GPU: the SSA runs as one sample-resident step in fp16 and bf16 and matches the CPU") {
  IE_REQUIRE_GPU();
  for (const char* kernel : {"", "always"})  // the row-tile kernel, then the interpreter
    for (const char* file : {"ssa.onnx", "ssa_dynamo.onnx"}) {
      test::ScopedEnv env("IE_SAMPLE_RESIDENT", kernel);
      const Graph g = load_onnx(test::weights_path(file));
      for (int64_t batch : {1, 7, 1000, 10001}) {
        const Tensor x = test::random_uniform({batch, 320}, 17 + static_cast<unsigned>(batch), -0.2f, 1.2f);
        Options cpu;
        cpu.backend = kernel_set::kCpu;
        const auto want = Engine::load(test::weights_path(file), cpu).create_session().run_ordered({{"x", x}});
        for (Precision p : {Precision::fp16, Precision::bf16}) {
          CAPTURE(kernel);
          CAPTURE(file);
          CAPTURE(batch);
          CAPTURE(precision_name(p));
          CHECK(chain_step(g, batch, p) == kernel_set::kCuda);
          Options o;
          o.backend = kernel_set::kCuda;
          o.precision = p;
          const auto got = Engine::load(test::weights_path(file), o).create_session().run_ordered({{"x", x}});
          REQUIRE(got.size() == want.size());
          for (size_t i = 0; i < got.size(); ++i) {
            CHECK(got[i].shape() == want[i].shape());
            CHECK(rel_l2(got[i], want[i]) <= 1e-2);
          }
        }
      }
    }
}

TEST_CASE("GPU: the interpreter declines outside its batches with the reason; the row-tile kernel takes them") {
  IE_REQUIRE_GPU();
  const Graph g = load_onnx(test::weights_path("ssa.onnx"));
  const int64_t batch = 16385;  // one past the range (sample_resident_cuda.cu: kMaxBatch)
  const Tensor x = test::random_uniform({batch, 320}, 5, -0.2f, 1.2f);
  Options cpu;
  cpu.backend = kernel_set::kCpu;
  const auto want = Engine::load(test::weights_path("ssa.onnx"), cpu).create_session().run_ordered({{"x", x}});
  {
    test::ScopedEnv interp("IE_SAMPLE_RESIDENT", "interp");
    for (int64_t outside : {int64_t{1}, batch}) {
      std::string declined;
      CHECK(chain_step(g, outside, Precision::bf16, &declined) == "(none)");
      CHECK(declined.find("per-step kernels are faster") != std::string::npos);
    }
    CHECK(chain_step(g, 512, Precision::bf16) == kernel_set::kCuda);
  }
  test::ScopedEnv automatic("IE_SAMPLE_RESIDENT", "");
  for (int64_t b : {int64_t{1}, int64_t{512}, batch}) CHECK(chain_step(g, b, Precision::bf16) == kernel_set::kCuda);
  Options o;
  o.backend = kernel_set::kCuda;
  o.precision = Precision::bf16;
  const auto got = Engine::load(test::weights_path("ssa.onnx"), o).create_session().run_ordered({{"x", x}});
  for (size_t i = 0; i < got.size(); ++i) CHECK(rel_l2(got[i], want[i]) <= 1e-2);
}

TEST_CASE("GPU: no sample-resident chain in the fp32 and tf32 modes") {
  IE_REQUIRE_GPU();
  const Graph g = load_onnx(test::weights_path("ssa.onnx"));
  for (Precision p : {Precision::fp32, Precision::tf32}) CHECK(chain_step(g, 64, p) == "(none)");
}
