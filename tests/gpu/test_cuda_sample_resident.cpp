// ie.SampleResident on the cuda backend: classifier heads (flatten, Linear + ReLU, Linear, Softmax) of the conv
// net's sizes and others (N not a multiple of 16) run as one step on the engine's choice, on each head kernel
// (CUDA cores, MMA) and on the interpreter at batches 1 to 10001 and match the CPU, a NaN staying in its sample; a
// head the head kernels decline runs per step with the reason; both exports of the SSA run as one step in fp16 and bf16
// and match the CPU backend's fp32 within the modes' gate (relative L2 <= 1e-2) at batches 1, 7, 33, 1000 and 10001, on
// the row-tile kernel (the default for this form) and on the interpreting kernel (IE_SAMPLE_RESIDENT=always); the
// interpreter outside the batches where it wins declines with its reason and the parts run; in strict fp32 the
// SSA is one step (the split sequence; its attention apart from the q | k | v product or joined, its latent products
// on cuBLASLt or the split kernels, its MLP in one kernel or apart) from 128 samples,
// within the fp32 gate (1e-5) of the CPU, a NaN staying in its sample; in tf32 the same sequence from 128 samples
// (float32-exact: within the fp32 gate); below 128 samples and with IE_LINEAR_FP32=nosplit it runs per step with the
// reason. The kernels' own checks at other shapes are in
// tests/kernels/sample_resident_lab.cu.
#include <cmath>

#include "../models/reference_data.h"
#include "cuda_compare.h"
#include "engine/backend/backend.h"
#include "engine/backend/kernel_sets.h"
#include "engine/loader/onnx_loader.h"
#include "engine/planner/plan.h"
#include "engine/registry/node_runner.h"
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
      for (int64_t batch : {1, 7, 33, 1000, 10001}) {  // 33: the 4-warp CTA shape, its last tile of 1 sample
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

TEST_CASE(
    "GPU: in strict fp32 the SSA is one step (the split sequence) from 128 samples and matches the CPU; tf32 too") {
  IE_REQUIRE_GPU();
  for (const char* file : {"ssa.onnx", "ssa_dynamo.onnx"}) {
    const Graph g = load_onnx(test::weights_path(file));
    for (int64_t batch : {1, 7, 127, 128, 1000, 10001}) {
      CAPTURE(file);
      CAPTURE(batch);
      const Tensor x = test::random_uniform({batch, 320}, 31 + static_cast<unsigned>(batch), -0.2f, 1.2f);
      Options cpu;
      cpu.backend = kernel_set::kCpu;
      const auto want = Engine::load(test::weights_path(file), cpu).create_session().run_ordered({{"x", x}});
      // The default (q | k | v and the attention apart; at these batches the latent products on cuBLASLt; the MLP in
      // one kernel, 32 hidden columns at a time), then the attention joined to the product (attention_split.cuh),
      // the latent products on the split kernels (linear_split_latent.cuh, the default from half as many CTAs as
      // SMs), the MLP's products apart, and the MLP kernel 16 columns at a time (with the final LayerNorm in it, and
      // without).
      struct Variant {
        const char *attention, *latent, *mlp;
      };
      const Variant variants[] = {{"", "", ""},      {"joined", "", ""}, {"", "split", ""},
                                  {"", "", "apart"}, {"", "", "16"},     {"", "split", "16"}};
      for (const auto& [attention, latent, mlp] : variants) {
        CAPTURE(attention);
        CAPTURE(latent);
        CAPTURE(mlp);
        test::ScopedEnv env_attention("IE_SPLIT_ATTENTION", attention);
        test::ScopedEnv env_latent("IE_SPLIT_LATENT", latent);
        test::ScopedEnv env_mlp("IE_SPLIT_MLP", mlp);
        std::string declined;
        CHECK(chain_step(g, batch, Precision::fp32, &declined) == (batch >= 128 ? kernel_set::kCuda : "(none)"));
        if (batch < 128) CHECK(declined.find("rows: the split sequence runs from 1280 rows") != std::string::npos);
        Options o;
        o.backend = kernel_set::kCuda;
        o.precision = Precision::fp32;
        const auto got = Engine::load(test::weights_path(file), o).create_session().run_ordered({{"x", x}});
        REQUIRE(got.size() == want.size());
        for (size_t i = 0; i < got.size(); ++i) {
          CHECK(got[i].shape() == want[i].shape());
          CHECK(rel_l2(got[i], want[i]) <= 1e-5);  // the fp32 mode's gate
        }
      }
    }
  }
  const Graph g = load_onnx(test::weights_path("ssa.onnx"));
  {  // IE_LINEAR_FP32=split takes the split products at every row count: the sequence at batch 1 and 7 too
    test::ScopedEnv split("IE_LINEAR_FP32", "split");
    test::ScopedEnv joined("IE_SPLIT_ATTENTION", "joined");  // its last group of one sample
    test::ScopedEnv latent("IE_SPLIT_LATENT", "split");      // a tile of one sample
    for (int64_t batch : {1, 7}) {
      CAPTURE(batch);
      const Tensor x = test::random_uniform({batch, 320}, 41 + static_cast<unsigned>(batch), -0.2f, 1.2f);
      Options cpu;
      cpu.backend = kernel_set::kCpu;
      const auto want = Engine::load(test::weights_path("ssa.onnx"), cpu).create_session().run_ordered({{"x", x}});
      CHECK(chain_step(g, batch, Precision::fp32) == kernel_set::kCuda);
      Options o;
      o.backend = kernel_set::kCuda;
      o.precision = Precision::fp32;
      const auto got = Engine::load(test::weights_path("ssa.onnx"), o).create_session().run_ordered({{"x", x}});
      for (size_t i = 0; i < got.size(); ++i) CHECK(rel_l2(got[i], want[i]) <= 1e-5);
    }
  }
  {  // a NaN stays in its sample: the LayerNorms, the attention and the latent products mix within a sample only
    const int64_t batch = 1000, bad = 3;
    Tensor x = test::random_uniform({batch, 320}, 77, -0.2f, 1.2f);
    x.data_as<float>()[bad * 320 + 5] = std::nanf("");
    test::ScopedEnv latent("IE_SPLIT_LATENT", "split");
    Options o;
    o.backend = kernel_set::kCuda;
    o.precision = Precision::fp32;
    const auto got = Engine::load(test::weights_path("ssa.onnx"), o).create_session().run_ordered({{"x", x}});
    for (const Tensor& t : got) {
      const int64_t width = t.numel() / batch;
      int64_t nan_elsewhere = 0, finite_in_bad = 0;
      for (int64_t i = 0; i < t.numel(); ++i) {
        const bool nan = std::isnan(t.data_as<float>()[i]);
        if (i / width == bad)
          finite_in_bad += !nan;
        else
          nan_elsewhere += nan;
      }
      CHECK(nan_elsewhere == 0);
      CHECK(finite_in_bad == 0);
    }
  }
  {  // tf32 takes the same float32-exact sequence from 128 samples (within the fp32 gate), per step below
    std::string declined;
    CHECK(chain_step(g, 127, Precision::tf32, &declined) == "(none)");
    CHECK(declined.find("rows: the split sequence runs from 1280 rows") != std::string::npos);
    const int64_t batch = 1001;
    CHECK(chain_step(g, batch, Precision::tf32) == kernel_set::kCuda);
    const Tensor x = test::random_uniform({batch, 320}, 43, -0.2f, 1.2f);
    Options cpu, o;
    cpu.backend = kernel_set::kCpu;
    o.backend = kernel_set::kCuda;
    o.precision = Precision::tf32;
    const auto want = Engine::load(test::weights_path("ssa.onnx"), cpu).create_session().run_ordered({{"x", x}});
    const auto got = Engine::load(test::weights_path("ssa.onnx"), o).create_session().run_ordered({{"x", x}});
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(rel_l2(got[i], want[i]) <= 1e-5);
  }
  std::string declined;
  test::ScopedEnv nosplit("IE_LINEAR_FP32", "nosplit");
  declined.clear();
  CHECK(chain_step(g, 4096, Precision::fp32, &declined) == "(none)");
  CHECK(declined.find("IE_LINEAR_FP32") != std::string::npos);
}

namespace {

struct HeadCase {
  Shape features;  // per sample, flattened into K
  int64_t hidden, classes;
  bool softmax_axis;  // an explicit axis = -1 (else the default, on a matrix)
};

// x [B, features] -> Flatten -> Gemm (transB) + ReLU -> Gemm (transB) -> Softmax -> y.
Graph head_graph(const HeadCase& c, int64_t batch, const std::string& what) {
  int64_t k = 1;
  for (int64_t d : c.features) k *= d;
  Graph g;
  g.opset = 17;
  g.source = "classifier head test graph";
  Attributes trans_b;
  trans_b.set_int("transB", 1);
  Attributes axis;
  if (c.softmax_axis) axis.set_int("axis", -1);
  g.nodes.push_back(make_node("Flatten", {"x"}, {"f"}));
  g.nodes.push_back(make_node("Gemm", {"f", "w1", "b1"}, {"g1"}, trans_b));
  g.nodes.push_back(make_node("Relu", {"g1"}, {"h"}));
  g.nodes.push_back(make_node("Gemm", {"h", "w2", "b2"}, {"logits"}, trans_b));
  g.nodes.push_back(make_node("Softmax", {"logits"}, {"y"}, axis));
  for (size_t i = 0; i < g.nodes.size(); ++i) g.nodes[i].name = "n" + std::to_string(i);
  const float r1 = 1.f / std::sqrt(static_cast<float>(k)), r2 = 2.f / std::sqrt(static_cast<float>(c.hidden));
  g.constants = {{"w1", test::random_uniform({c.hidden, k}, test::seed_of(what, 1), -r1, r1)},
                 {"b1", test::random_uniform({c.hidden}, test::seed_of(what, 2), -0.3f, 0.3f)},
                 {"w2", test::random_uniform({c.classes, c.hidden}, test::seed_of(what, 3), -r2, r2)},
                 {"b2", test::random_uniform({c.classes}, test::seed_of(what, 4), -0.3f, 0.3f)}};
  Shape in = {batch};
  in.insert(in.end(), c.features.begin(), c.features.end());
  g.inputs = {TensorDecl{"x", DType::Float32, in, {"", ""}}};
  g.outputs = {test::inferred_output("y")};
  return g;
}

// A head planned in bf16 that must run per step: the reasons its steps carry.
std::string per_step_declines(const Graph& g, const Shape& x) {
  PlanOptions options;
  options.precision = Precision::bf16;
  auto plan = build_plan(g, {{"x", x}}, make_backend(kernel_set::kCuda, Options{}), options);
  std::string declined;
  for (auto& step : plan->steps) {
    CHECK(step.node.op_type != "SampleResident");
    for (auto& d : step.declined) declined += d + "\n";
  }
  return declined;
}

}  // namespace

TEST_CASE("GPU: classifier heads run as one sample-resident step and match the CPU") {
  IE_REQUIRE_GPU();
  const std::vector<HeadCase> cases = {
      {{16, 8, 8}, 32, 10, false},  // the conv net's
      {{3, 4, 4}, 16, 7, true},
      {{4, 8, 8}, 64, 100, true},
      {{32}, 48, 33, false},
  };
  for (const HeadCase& c : cases)
    for (int64_t batch : {1, 7, 1000, 10001}) {
      const std::string what = "head " + shape_to_string(c.features) + " -> " + std::to_string(c.hidden) + " -> " +
                               std::to_string(c.classes) + " at " + std::to_string(batch);
      const Graph g = head_graph(c, batch, what);
      Shape in = {batch};
      in.insert(in.end(), c.features.begin(), c.features.end());
      Tensor x = test::random_uniform(in, test::seed_of(what, 5), -1.f, 1.f);
      if (batch > 1) x.data_as<float>()[1] = std::nanf("");  // sample 0's second value
      const auto want = test::run_graph_on(test::Path{kernel_set::kCpu}, g, {{"x", x}});
      // The engine's choice, each head kernel forced, then the interpreter (sample_resident_cuda.cu)
      for (const char* kernel : {"", "head_cores", "head_mma", "always"})
        for (Precision p : {Precision::fp16, Precision::bf16}) {
          test::ScopedEnv env("IE_SAMPLE_RESIDENT", kernel);
          INFO(what, " in ", precision_name(p), " (IE_SAMPLE_RESIDENT=", kernel, ")");
          CHECK(test::kernel_set_serving(g, {{"x", in}}, p, "SampleResident") == std::string(kernel_set::kCuda));
          const auto got = test::run_graph_on(test::Path{kernel_set::kCuda, "", p}, g, {{"x", x}});
          REQUIRE(got.size() == 1);
          const float* y = got[0].data_as<float>();
          const float* ref = want[0].data_as<float>();
          const int64_t n = c.classes;
          if (batch > 1) {  // the NaN's sample is NaN in every class, as on the CPU; its neighbours are not
            for (int64_t j = 0; j < n; ++j) CHECK(std::isnan(ref[j]));
            for (int64_t j = 0; j < n; ++j) CHECK(std::isnan(y[j]));
            for (int64_t j = n; j < 2 * n; ++j) CHECK(std::isfinite(y[j]));
          }
          // The samples without the NaN against the CPU's fp32 (probabilities: absolute error; the inputs and
          // weights rounded to 16 bits, products in float)
          const int64_t from = batch > 1 ? 1 : 0;
          double worst = 0;
          for (int64_t i = from * n; i < batch * n; ++i) worst = std::max(worst, std::fabs(double(y[i]) - ref[i]));
          CHECK(worst <= (p == Precision::fp16 ? 5e-3 : 2e-2));
        }
    }
}

TEST_CASE("GPU: a head too wide for the CUDA-core head's tile runs on the MMA head at every batch") {
  IE_REQUIRE_GPU();
  // K = 16384: 8 samples' input rows alone are 256 KiB, past any SM; the MMA head reads them from global memory.
  const HeadCase c{{16, 32, 32}, 32, 10, false};
  for (int64_t batch : {7, 1025}) {
    const std::string what = "wide input at " + std::to_string(batch);
    const Graph g = head_graph(c, batch, what);
    const Shape in = {batch, 16, 32, 32};
    const Tensor x = test::random_uniform(in, test::seed_of(what, 5), -1.f, 1.f);
    const auto want = test::run_graph_on(test::Path{kernel_set::kCpu}, g, {{"x", x}});
    for (const char* kernel : {"", "head_mma"}) {
      test::ScopedEnv env("IE_SAMPLE_RESIDENT", kernel);
      INFO(what, " (IE_SAMPLE_RESIDENT=", kernel, ")");
      CHECK(test::kernel_set_serving(g, {{"x", in}}, Precision::bf16, "SampleResident") ==
            std::string(kernel_set::kCuda));
      const auto got = test::run_graph_on(test::Path{kernel_set::kCuda, "", Precision::bf16}, g, {{"x", x}});
      REQUIRE(got.size() == 1);
      double worst = 0;
      for (int64_t i = 0; i < batch * c.classes; ++i)
        worst = std::max(worst, std::fabs(double(got[0].data_as<float>()[i]) - want[0].data_as<float>()[i]));
      CHECK(worst <= 2e-2);
    }
  }
  // The CUDA-core head forced declines it with the reason.
  test::ScopedEnv env("IE_SAMPLE_RESIDENT", "head_cores");
  const std::string declined = per_step_declines(head_graph(c, 7, "wide input, CUDA-core head"), {7, 16, 32, 32});
  INFO(declined);
  CHECK(declined.find("the CUDA-core head's tile of 8 samples needs") != std::string::npos);
}

TEST_CASE("GPU: a head the head kernels decline (a size, a large batch) runs per step, with the reason") {
  IE_REQUIRE_GPU();
  test::ScopedEnv automatic("IE_SAMPLE_RESIDENT", "");
  const HeadCase c{{16, 8, 8}, 272, 10, false};  // hidden 272: over the head kernel's 256
  std::string declined = per_step_declines(head_graph(c, 5, "wide head"), {5, 16, 8, 8});
  INFO(declined);
  CHECK(declined.find("the interpreter is slower there at every batch") != std::string::npos);
  CHECK(declined.find("hidden 272") != std::string::npos);
  // hidden 128: past the MMA head's 64, and at 1025 samples past the CUDA-core head's batches
  const HeadCase wide{{16, 8, 8}, 128, 10, false};
  declined = per_step_declines(head_graph(wide, 1025, "large batch"), {1025, 16, 8, 8});
  INFO(declined);
  CHECK(declined.find("batch 1025: past 1024 the per-step kernels are faster than the CUDA-core head kernel, and "
                      "hidden 128 is past the MMA head's 64") != std::string::npos);
}
