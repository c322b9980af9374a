// The fused set's LayerNormalization and ie.LayerNorm (LayerNorm + activation, from the layer_norm_activation
// rule) against the CPU backend in every precision mode, on row counts 1, 7, 10001 and 100003 and widths that take
// each kernel (group: 16, 48, 64, 320, 1000; block: 4096; generic: 33, 1001), checking that the fused set served
// the step (a decline would otherwise pass on the reference kernels).
#include "cuda_compare.h"
#include "engine/backend/backend.h"
#include "engine/planner/plan.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

// x [rows, n] -> LayerNormalization over n (constant scale and bias) -> activation `act` ("" for none) -> y.
Graph norm_graph(int64_t rows, int64_t n, const std::string& act, const std::string& what) {
  Graph g;
  g.opset = 17;
  g.source = "layer norm test graph";
  Attributes a;
  a.set_int("axis", -1);
  a.set_float("epsilon", 1e-5f);
  Node norm = make_node("LayerNormalization", {"x", "scale", "bias"}, {act.empty() ? "y" : "h"}, a);
  norm.name = "norm";
  g.nodes = {norm};
  if (!act.empty()) {
    Attributes aa;
    std::string op = act;
    if (act == "GeluTanh") op = "Gelu", aa.set_string("approximate", "tanh");
    Node an = make_node(op, {"h"}, {"y"}, aa);
    an.name = "act";
    g.nodes.push_back(an);
  }
  g.constants = {{"scale", random_uniform({n}, seed_of(what, 2), 0.5f, 1.5f)},
                 {"bias", random_uniform({n}, seed_of(what, 3), -1.f, 1.f)}};
  g.inputs = {TensorDecl{"x", DType::Float32, {rows, n}, {"", ""}}};
  g.outputs = {inferred_output("y")};
  return g;
}

// The kernel set of the plan's normalization step on the cuda backend in mode `p`.
std::string served_by(const Graph& g, const Shape& x, Precision p) {
  return kernel_set_serving(g, {{"x", x}}, p, g.nodes.size() > 1 ? "LayerNorm" : "LayerNormalization");
}

}  // namespace

TEST_CASE("cuda LayerNorm (fused set) matches the CPU in every precision, with and without an activation") {
  IE_REQUIRE_GPU();
  struct Case {
    int64_t rows, n;
    const char* act;
  };
  const std::vector<Case> cases = {
      {7, 64, "Gelu"},
      {10001, 64, "Gelu"},
      {1, 64, ""},
      {7, 16, "Relu"},
      {7, 48, "GeluTanh"},
      {10001, 320, ""},
      {7, 320, "Gelu"},
      {7, 1000, "Tanh"},
      {1, 4096, "Gelu"},
      {7, 4096, ""},
      {7, 33, "Gelu"},
      {1, 1001, ""},
      {7, 64, "Sigmoid"},
      // More row groups than one wave of resident CTAs: 16-bit rows then walk several rows per group (the
      // streaming kernel's loop), float rows take the plain kernel.
      {100003, 64, "Gelu"},
  };
  for (Precision p : all_precisions())
    for (const Case& c : cases) {
      const std::string what = std::string("LayerNorm ") + std::to_string(c.rows) + "x" + std::to_string(c.n) +
                               (c.act[0] ? std::string(" + ") + c.act : std::string());
      INFO(what, " in ", precision_name(p));
      const Graph g = norm_graph(c.rows, c.n, c.act, what);
      const Tensor x = random_uniform({c.rows, c.n}, seed_of(what, 1), -2.f, 2.f);
      CHECK(served_by(g, {c.rows, c.n}, p) == kernel_set::kCuda);
      check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", x}}),
                          run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), fused_tolerance(p));
    }
}

TEST_CASE("cuda LayerNormalization (fused set) writes Mean and InvStdDev") {
  IE_REQUIRE_GPU();
  for (int64_t n : {64, 4096, 33}) {
    Attributes a;
    a.set_int("axis", -1);
    Node node = make_node("LayerNormalization", {"x", "scale", "b"}, {"y", "mean", "inv_std"}, a);
    const std::string what = "LayerNormalization +stats n=" + std::to_string(n);
    std::vector<Tensor> in = {random_uniform({9, n}, seed_of(what, 1), 1.f, 3.f),
                              random_uniform({n}, seed_of(what, 2), 0.5f, 1.5f),
                              random_uniform({n}, seed_of(what, 3), -1.f, 1.f)};
    check_paths_match(what, node, in, {false, true, true}, {1e-5, 1e-4}, 17, Path{kernel_set::kCuda, kernel_set::kCuda},
                      Path{kernel_set::kCpu});
  }
}

}  // namespace ie::test
