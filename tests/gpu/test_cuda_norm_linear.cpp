// ie.NormLinear (norm_linear): a LayerNormalization (with or without its activation) feeding ie.Linear runs as one
// step in strict fp32, the FFMA kernel normalizing A's rows as it stages them. Against the CPU's two nodes on row
// counts 1, 7, 129 (a partial 128-row tile) and 5121, K not a multiple of the 16-deep k-step, N not of the
// 64-column block, rows whose mean is ten times their spread; and where it declines (fewer rows than the FFMA
// kernel's threshold, tf32) the plan keeps the two nodes, each saying why; in 16 bits the rule does not match.
#include <algorithm>
#include <cmath>
#include <string>

#include "cuda_compare.h"
#include "engine/backend/backend.h"
#include "engine/planner/plan.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

struct NormLinearCase {
  Shape x;               // [..., K]
  int64_t n;             // the product's width
  const char* norm_act;  // the LayerNorm's activation node, "" for none
  const char* act;       // the product's, "" for none
  bool norm_bias;        // the LayerNorm's B input
  float offset;          // added to every x: rows whose mean is far from zero against their spread
};

std::string describe(const NormLinearCase& c) {
  return "LayerNorm" + std::string(c.norm_bias ? "(B)" : "") + (c.norm_act[0] ? std::string(" + ") + c.norm_act : "") +
         " -> Linear " + shape_to_string(c.x) + " -> " + std::to_string(c.n) + (c.act[0] ? " + " : "") + c.act +
         (c.offset != 0.f ? ", mean " + std::to_string(c.offset) : "");
}

Graph norm_linear_graph(const NormLinearCase& c, const std::string& what) {
  const int64_t k = c.x.back();
  Graph g;
  g.opset = 17;
  g.source = "norm_linear test graph";
  Attributes ln;
  ln.set_int("axis", -1);
  ln.set_float("epsilon", 1e-5f);
  std::vector<std::string> ln_in = {"x", "scale"};
  if (c.norm_bias) ln_in.push_back("beta");
  g.nodes.push_back(make_node("LayerNormalization", ln_in, {c.norm_act[0] ? "t" : "u"}, ln));
  if (c.norm_act[0]) g.nodes.push_back(make_node(c.norm_act, {"t"}, {"u"}));
  g.nodes.push_back(make_node("MatMul", {"u", "w"}, {"m"}));
  g.nodes.push_back(make_node("Add", {"m", "b"}, {c.act[0] ? "h" : "y"}));
  if (c.act[0]) g.nodes.push_back(make_node(c.act, {"h"}, {"y"}));
  for (size_t i = 0; i < g.nodes.size(); ++i) g.nodes[i].name = "n" + std::to_string(i);
  const float r = 1.f / std::sqrt(static_cast<float>(k));
  g.constants = {{"scale", random_uniform({k}, seed_of(what, 5), 0.5f, 1.5f)},
                 {"w", random_uniform({k, c.n}, seed_of(what, 2), -r, r)},
                 {"b", random_uniform({c.n}, seed_of(what, 3), -0.3f, 0.3f)}};
  if (c.norm_bias) g.constants["beta"] = random_uniform({k}, seed_of(what, 6), -0.5f, 0.5f);
  g.inputs = {TensorDecl{"x", DType::Float32, c.x, {}}};
  g.outputs = {inferred_output("y")};
  return g;
}

Tensor input_of(const NormLinearCase& c, const std::string& what) {
  Tensor x = random_uniform(c.x, seed_of(what, 1), -1.f, 1.f);
  float* v = x.data_as<float>();
  for (int64_t i = 0; i < x.numel(); ++i) v[i] += c.offset;
  return x;
}

// The ops of the plan's steps, in order, and every step's declined reasons.
std::vector<std::string> step_ops(const Graph& g, const Shape& x, Precision p, std::string* declined = nullptr) {
  PlanOptions options;
  options.precision = p;
  auto plan = build_plan(g, {{"x", x}}, make_backend(kernel_set::kCuda, Options{}), options);
  std::vector<std::string> ops;
  for (auto& step : plan->steps) {
    ops.push_back(step.node.op_type);
    if (declined)
      for (auto& d : step.declined) *declined += d + "\n";
  }
  return ops;
}

bool has_op(const std::vector<std::string>& ops, const std::string& op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

}  // namespace

TEST_CASE("cuda NormLinear: the LayerNorm staged by the fp32 FFMA kernel matches the CPU on odd shapes") {
  IE_REQUIRE_GPU();
  const ScopedEnv ffma("IE_LINEAR_FP32", "ffma");  // every row count (the rows threshold is tested below)
  const std::vector<NormLinearCase> cases = {
      {{5121, 64}, 128, "", "Gelu", true, 0.f},   {{1, 64}, 128, "Gelu", "Gelu", true, 0.f},
      {{7, 36}, 20, "", "", false, 0.f},          {{129, 100}, 68, "Gelu", "Tanh", true, 0.f},
      {{13, 10, 64}, 64, "", "Gelu", true, 10.f}, {{129, 12}, 4, "Relu", "Sigmoid", false, 10.f},
      {{5121, 640}, 32, "", "", true, 0.f},       {{9, 4}, 8, "", "Gelu", true, -10.f},
  };
  for (const NormLinearCase& c : cases) {
    const std::string what = describe(c);
    INFO(what);
    const Graph g = norm_linear_graph(c, what);
    const Tensor x = input_of(c, what);
    const std::vector<std::string> ops = step_ops(g, c.x, Precision::fp32);
    CHECK(ops.size() == 1);
    CHECK(kernel_set_serving(g, {{"x", c.x}}, Precision::fp32, "NormLinear") == kernel_set::kCuda);
    check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::fp32}, g, {{"x", x}}),
                        run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), Tolerance{1e-5, 1e-4});
  }
}

TEST_CASE("cuda NormLinear declines where the FFMA kernel would, and the plan keeps both nodes") {
  IE_REQUIRE_GPU();
  const NormLinearCase big{{4000, 10, 64}, 128, "", "Gelu", true, 0.f};    // 40000 rows: the FFMA kernel's pick
  const NormLinearCase small{{3000, 10, 64}, 128, "", "Gelu", true, 0.f};  // 30000: cuBLASLt's
  const NormLinearCase plain{{4000, 10, 64}, 64, "", "", true, 0.f};       // no activation: cuBLASLt's epilogue
  const NormLinearCase odd_k{{4000, 10, 30}, 128, "", "Gelu", true, 0.f};  // K not a multiple of 4
  {
    INFO(describe(big));
    const Graph g = norm_linear_graph(big, describe(big));
    CHECK(step_ops(g, big.x, Precision::fp32) == std::vector<std::string>{"NormLinear"});
    const Tensor x = input_of(big, describe(big));
    check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::fp32}, g, {{"x", x}}),
                        run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), Tolerance{1e-5, 1e-4});
    // tf32 products run on cuBLASLt, 16-bit modes do not match the float32-only rule
    std::string declined;
    const std::vector<std::string> tf32 = step_ops(g, big.x, Precision::tf32, &declined);
    CHECK_FALSE(has_op(tf32, "NormLinear"));
    CHECK(declined.find("ie.NormLinear cuda: the LayerNorm is staged by the strict-fp32 FFMA kernel only") !=
          std::string::npos);
    for (Precision p : {Precision::fp16, Precision::bf16}) CHECK_FALSE(has_op(step_ops(g, big.x, p), "NormLinear"));
  }
  for (const NormLinearCase& c : {small, plain, odd_k}) {
    const std::string what = describe(c);
    INFO(what);
    const Graph g = norm_linear_graph(c, what);
    std::string declined;
    const std::vector<std::string> ops = step_ops(g, c.x, Precision::fp32, &declined);
    CHECK_FALSE(has_op(ops, "NormLinear"));
    CHECK(has_op(ops, "LayerNormalization"));
    CHECK(declined.find("(runs unfused)") != std::string::npos);
    const Tensor x = input_of(c, what);
    check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::fp32}, g, {{"x", x}}),
                        run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), Tolerance{1e-5, 1e-4});
  }
}

}  // namespace ie::test
