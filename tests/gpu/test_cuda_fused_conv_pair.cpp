// The fused set's ie.FusedConvPair (a pool-on-M conv feeding a shared-rows conv in one kernel, the map kept on
// chip) against the CPU backend on the conv net's shapes and odd ones, in fp16 and bf16, each configuration forced;
// the tuned choice (the pair, or the two convolutions apart); and the declines, which leave two ie.FusedConv steps.
#include <cmath>

#include "cuda_compare.h"
#include "engine/backend/backend.h"
#include "engine/core/float_convert.h"
#include "engine/planner/plan.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

// As the single convolutions' (test_cuda_fused_conv.cpp): the map and the output are stored in 16 bits.
Tolerance tolerance_of(Precision p) { return p == Precision::fp16 ? Tolerance{1e-2, 1e-2} : Tolerance{2e-2, 2e-2}; }

struct PairCase {
  Shape x;                // N, C, H, W
  int64_t k1, r1;         // the first conv (2x2 pool)
  int64_t k2, r2, pool2;  // the second
};

Node conv_node(const std::string& name, const std::vector<std::string>& in, const std::string& out, int64_t pool) {
  Attributes a;
  a.set_ints("pads", {0, 0, 0, 0});
  a.set_string("activation", "Relu");
  a.set_string("pool", "MaxPool");
  a.set_ints("pool_kernel_shape", {pool, pool});
  a.set_ints("pool_strides", {pool, pool});
  Node n = make_node("FusedConv", in, {out}, a, "ie");
  n.name = name;
  return n;
}

std::vector<Tensor> inputs_of(const PairCase& c, const std::string& what) {
  const float r1 = 1.f / std::sqrt(static_cast<float>(c.x[1] * c.r1 * c.r1));
  const float r2 = 1.f / std::sqrt(static_cast<float>(c.k1 * c.r2 * c.r2));
  return {random_uniform(c.x, seed_of(what, 1), 0.f, 1.f),
          random_uniform({c.k1, c.x[1], c.r1, c.r1}, seed_of(what, 2), -r1, r1),
          random_uniform({c.k1}, seed_of(what, 3), -0.3f, 0.3f),
          random_uniform({c.k2, c.k1, c.r2, c.r2}, seed_of(what, 4), -r2, r2),
          random_uniform({c.k2}, seed_of(what, 5), -0.3f, 0.3f)};
}

// x -> conv a -> m -> conv b -> y, the weights and biases constants.
Graph graph_of(const PairCase& c, const std::vector<Tensor>& in) {
  Graph g;
  g.opset = 17;
  g.source = "fused conv pair test graph";
  g.nodes = {conv_node("a", {"x", "w1", "b1"}, "m", 2), conv_node("b", {"m", "w2", "b2"}, "y", c.pool2)};
  g.constants = {{"w1", in[1]}, {"b1", in[2]}, {"w2", in[3]}, {"b2", in[4]}};
  g.inputs = {TensorDecl{"x", DType::Float32, c.x, std::vector<std::string>(4, "")}};
  g.outputs = {inferred_output("y")};
  return g;
}

std::string describe(const PairCase& c) {
  return "pair X=" + shape_to_string(c.x) + " " + std::to_string(c.k1) + "r" + std::to_string(c.r1) + " -> " +
         std::to_string(c.k2) + "r" + std::to_string(c.r2) + " pool " + std::to_string(c.pool2);
}

// The plan's convolution steps on the cuda backend in mode p (the graph's Casts left out), and every step's decline
// reasons joined.
struct PlanSummary {
  std::vector<std::string> ops;
  std::string declined;
};
PlanSummary plan_summary(const Graph& g, const Shape& x, Precision p) {
  PlanOptions options;
  options.precision = p;
  auto plan = build_plan(g, {{"x", x}}, make_backend(kernel_set::kCuda, Options{}), options);
  PlanSummary s;
  for (auto& step : plan->steps) {
    if (step.node.op_type != "Cast") s.ops.push_back(step.node.op_type);
    for (auto& d : step.declined) s.declined += d + "\n";
  }
  return s;
}

const PairCase kConvNet{{1, 1, 86, 86}, 4, 7, 16, 7, 4};

}  // namespace

TEST_CASE("cuda FusedConvPair: every configuration matches the CPU on odd shapes in fp16 and bf16") {
  IE_REQUIRE_GPU();
  const std::vector<PairCase> cases = {
      kConvNet,
      {{7, 1, 86, 86}, 4, 7, 16, 7, 4},
      {{1001, 1, 86, 86}, 4, 7, 16, 7, 4},
      {{3, 1, 61, 75}, 3, 5, 12, 5, 2},  // staged rows wider than the map (zero words), no bulk copy (odd bytes)
      {{2, 2, 50, 47}, 4, 4, 9, 7, 4},   // odd map width, fewer map rows read than it has
      {{1, 3, 40, 40}, 2, 3, 16, 5, 2},  // three input channels
      {{2, 4, 44, 52}, 4, 7, 16, 7, 4},  // 16 k-steps of weights for the first conv
  };
  for (Precision p : {Precision::bf16, Precision::fp16})
    for (const PairCase& c : cases) {
      const std::string what = describe(c);
      const std::vector<Tensor> in = inputs_of(c, what);
      const Graph g = graph_of(c, in);
      const std::vector<Tensor> want = run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in[0]}});
      for (const char* config : {"pair_w4", "pair_w8"}) {
        INFO(what, " in ", precision_name(p), " with ", config);
        ScopedEnv env("IE_FUSED_CONV_PAIR_CONFIG", config);
        CHECK(kernel_set_serving(g, {{"x", c.x}}, p, "FusedConvPair") == kernel_set::kCuda);
        check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", in[0]}}), want, tolerance_of(p));
      }
    }
}

TEST_CASE("cuda FusedConvPair keeps a NaN in its image") {
  IE_REQUIRE_GPU();
  PairCase c = kConvNet;
  c.x[0] = 3;
  std::vector<Tensor> in = inputs_of(c, "pair nan");
  in[0].data_as<float>()[86 * 86 + 40 * 86 + 40] = NAN;  // image 1
  const Graph g = graph_of(c, in);
  for (const char* config : {"pair_w4", "pair_w8"}) {
    INFO(config);
    ScopedEnv env("IE_FUSED_CONV_PAIR_CONFIG", config);
    const std::vector<int64_t> nan_in =
        nans_per_image(run_graph_on(Path{kernel_set::kCuda, "", Precision::bf16}, g, {{"x", in[0]}})[0]);
    CHECK(nan_in[0] == 0);
    CHECK(nan_in[1] > 0);
    CHECK(nan_in[2] == 0);
  }
}

TEST_CASE("cuda FusedConvPair: the tuned choice matches the CPU, and declines leave the two convolutions") {
  IE_REQUIRE_GPU();
  for (int64_t n : {1, 1000}) {
    PairCase c = kConvNet;
    c.x[0] = n;
    const std::string what = describe(c);
    const std::vector<Tensor> in = inputs_of(c, what);
    const Graph g = graph_of(c, in);
    const std::vector<Tensor> want = run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in[0]}});
    INFO(what);
    // Tuned (the pair or the two apart, whichever ran faster here): either way the same outputs.
    const PlanSummary tuned = plan_summary(g, c.x, Precision::bf16);
    const bool pair = tuned.ops == std::vector<std::string>{"FusedConvPair"};
    CHECK((pair || tuned.ops == std::vector<std::string>{"FusedConv", "FusedConv"}));
    if (!pair) CHECK(tuned.declined.find("faster apart") != std::string::npos);
    check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::bf16}, g, {{"x", in[0]}}), want,
                        tolerance_of(Precision::bf16));
    // Forced apart: two steps that say why.
    ScopedEnv env("IE_FUSED_CONV_PAIR_CONFIG", "apart");
    const PlanSummary apart = plan_summary(g, c.x, Precision::bf16);
    CHECK(apart.ops == std::vector<std::string>{"FusedConv", "FusedConv"});
    CHECK(apart.declined.find("ie.FusedConvPair") != std::string::npos);
    check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::bf16}, g, {{"x", in[0]}}), want,
                        tolerance_of(Precision::bf16));
  }
  // Outside the pair's range (8 channels in the second conv; strict fp32): two FusedConv steps, with the reason.
  PairCase narrow = kConvNet;
  narrow.k2 = 8;
  const std::vector<Tensor> in = inputs_of(narrow, "narrow");
  const PlanSummary s = plan_summary(graph_of(narrow, in), narrow.x, Precision::bf16);
  CHECK(s.ops == std::vector<std::string>{"FusedConv", "FusedConv"});
  CHECK(s.declined.find("shared rows need 9 to 16 output channels") != std::string::npos);
  const std::vector<Tensor> in32 = inputs_of(kConvNet, "fp32");
  const PlanSummary f = plan_summary(graph_of(kConvNet, in32), kConvNet.x, Precision::fp32);
  CHECK(f.ops == std::vector<std::string>{"FusedConv", "FusedConv"});
  CHECK(f.declined.find("bf16 and fp16 modes only") != std::string::npos);
}

}  // namespace ie::test
