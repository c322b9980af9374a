// ie.LinearNorm (linear_norm): an ie.Linear and the LayerNorm of its output run as one step in strict fp32, the
// FFMA kernel normalizing each row in its epilogue (N <= 64). Against the CPU's nodes on row counts 1, 7, 129 (a
// partial 128-row tile) and 5121, K and N not multiples of the tiles, with the product's output read by the
// LayerNorm alone (not written), by a later node too (written), or a graph output; and where it does not apply:
// a reader of the product before the LayerNorm (no match), N > 64, fewer rows than the FFMA kernel's threshold and
// tf32 (the plan keeps both nodes, each saying why), 16-bit modes (the float32-only rule does not match).
#include <algorithm>
#include <cmath>
#include <string>

#include "cuda_compare.h"
#include "engine/backend/backend.h"
#include "engine/planner/plan.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

enum class HReader { None, Later, Output, Earlier };  // who else reads the product's output h

struct LinearNormCase {
  Shape x;               // [..., K]
  int64_t n;             // the product's width
  const char* act;       // the product's activation node, "" for none
  bool residual;         // h = product + r (linear_residual)
  const char* norm_act;  // the LayerNorm's activation node, "" for none
  bool norm_bias;
  HReader reader;
};

std::string describe(const LinearNormCase& c) {
  const char* readers[] = {"LN alone", "a later Add", "a graph output", "an earlier Relu"};
  return "Linear " + shape_to_string(c.x) + " -> " + std::to_string(c.n) +
         (c.act[0] ? std::string(" + ") + c.act : "") + (c.residual ? " + r" : "") + " -> LayerNorm" +
         (c.norm_bias ? "(B)" : "") + (c.norm_act[0] ? std::string(" + ") + c.norm_act : "") + "; h read by " +
         readers[static_cast<int>(c.reader)];
}

Shape with_last(Shape s, int64_t n) {
  s.back() = n;
  return s;
}

Graph linear_norm_graph(const LinearNormCase& c, const std::string& what) {
  const int64_t k = c.x.back();
  Graph g;
  g.opset = 17;
  g.source = "linear_norm test graph";
  g.nodes.push_back(make_node("MatMul", {"x", "w"}, {"m"}));
  g.nodes.push_back(make_node("Add", {"m", "b"}, {"p"}));
  std::string h = "p";
  if (c.act[0]) {
    g.nodes.push_back(make_node(c.act, {h}, {"pa"}));
    h = "pa";
  }
  if (c.residual) {
    g.nodes.push_back(make_node("Add", {"r", h}, {"h"}));
    h = "h";
  }
  if (c.reader == HReader::Earlier) g.nodes.push_back(make_node("Relu", {h}, {"early"}));
  Attributes ln;
  ln.set_int("axis", -1);
  ln.set_float("epsilon", 1e-5f);
  std::vector<std::string> ln_in = {h, "scale"};
  if (c.norm_bias) ln_in.push_back("beta");
  g.nodes.push_back(make_node("LayerNormalization", ln_in, {c.norm_act[0] ? "t" : "y"}, ln));
  if (c.norm_act[0]) g.nodes.push_back(make_node(c.norm_act, {"t"}, {"y"}));
  if (c.reader == HReader::Later) g.nodes.push_back(make_node("Add", {h, "y"}, {"z"}));
  for (size_t i = 0; i < g.nodes.size(); ++i) g.nodes[i].name = "n" + std::to_string(i);
  const float r = 1.f / std::sqrt(static_cast<float>(k));
  g.constants = {{"w", random_uniform({k, c.n}, seed_of(what, 2), -r, r)},
                 {"b", random_uniform({c.n}, seed_of(what, 3), -0.3f, 0.3f)},
                 {"scale", random_uniform({c.n}, seed_of(what, 5), 0.5f, 1.5f)}};
  if (c.norm_bias) g.constants["beta"] = random_uniform({c.n}, seed_of(what, 6), -0.5f, 0.5f);
  g.inputs = {TensorDecl{"x", DType::Float32, c.x, {}}};
  if (c.residual) g.inputs.push_back(TensorDecl{"r", DType::Float32, with_last(c.x, c.n), {}});
  g.outputs = {inferred_output(c.reader == HReader::Later ? "z" : "y")};
  if (c.reader == HReader::Output) g.outputs.push_back(inferred_output(h));
  if (c.reader == HReader::Earlier) g.outputs.push_back(inferred_output("early"));
  return g;
}

std::map<std::string, Tensor> feeds_of(const LinearNormCase& c, const std::string& what) {
  std::map<std::string, Tensor> feeds = {{"x", random_uniform(c.x, seed_of(what, 1), -1.f, 1.f)}};
  if (c.residual) feeds["r"] = random_uniform(with_last(c.x, c.n), seed_of(what, 4), -1.f, 1.f);
  return feeds;
}

std::map<std::string, Shape> shapes_of(const std::map<std::string, Tensor>& feeds) {
  std::map<std::string, Shape> shapes;
  for (auto& [name, t] : feeds) shapes[name] = t.shape();
  return shapes;
}

// The ops of the plan's steps, in order, and every step's declined reasons.
std::vector<std::string> step_ops(const Graph& g, const std::map<std::string, Shape>& shapes, Precision p,
                                  std::string* declined = nullptr) {
  PlanOptions options;
  options.precision = p;
  auto plan = build_plan(g, shapes, make_backend(kernel_set::kCuda, Options{}), options);
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

void check_against_cpu(const Graph& g, const std::map<std::string, Tensor>& feeds) {
  check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::fp32}, g, feeds),
                      run_graph_on(Path{kernel_set::kCpu}, g, feeds), Tolerance{1e-5, 1e-4});
}

}  // namespace

TEST_CASE("cuda LinearNorm: the LayerNorm in the fp32 FFMA product's epilogue matches the CPU on odd shapes") {
  IE_REQUIRE_GPU();
  const ScopedEnv ffma("IE_LINEAR_FP32", "ffma");  // every row count (the rows threshold is tested below)
  const std::vector<LinearNormCase> cases = {
      {{5121, 32}, 64, "", false, "Gelu", true, HReader::None},      // the SSA's embed -> embed_norm + GELU
      {{513, 10, 64}, 64, "", true, "", true, HReader::Later},       // proj + residual -> ln2, h read later
      {{129, 128}, 64, "", true, "", true, HReader::None},           // fc2 + residual -> enc_norm
      {{7, 36}, 60, "Gelu", false, "Relu", false, HReader::Output},  // h a graph output too
      {{1, 640}, 32, "Tanh", false, "Gelu", true, HReader::Later},   // (an activation keeps a residual apart)
      {{130, 12}, 4, "", false, "Sigmoid", true, HReader::None},
      {{257, 64}, 20, "Relu", false, "", false, HReader::Output},
  };
  for (const LinearNormCase& c : cases) {
    const std::string what = describe(c);
    INFO(what);
    const Graph g = linear_norm_graph(c, what);
    const auto feeds = feeds_of(c, what);
    const std::vector<std::string> ops = step_ops(g, shapes_of(feeds), Precision::fp32);
    CHECK(has_op(ops, "LinearNorm"));
    CHECK_FALSE(has_op(ops, "LayerNormalization"));
    CHECK(kernel_set_serving(g, shapes_of(feeds), Precision::fp32, "LinearNorm") == kernel_set::kCuda);
    check_against_cpu(g, feeds);
  }
}

TEST_CASE("cuda LinearNorm declines, or does not match, where the epilogue cannot run; the plan keeps both nodes") {
  IE_REQUIRE_GPU();
  const LinearNormCase big{{4000, 10, 64}, 64, "", true, "", true, HReader::Later};  // 40000 rows: FFMA's pick
  {
    const std::string what = describe(big);
    INFO(what);
    const Graph g = linear_norm_graph(big, what);
    const auto feeds = feeds_of(big, what);
    CHECK(has_op(step_ops(g, shapes_of(feeds), Precision::fp32), "LinearNorm"));
    check_against_cpu(g, feeds);
    std::string declined;
    CHECK_FALSE(has_op(step_ops(g, shapes_of(feeds), Precision::tf32, &declined), "LinearNorm"));
    CHECK(declined.find("ie.LinearNorm cuda: the LayerNorm epilogue is the strict-fp32 FFMA kernel's") !=
          std::string::npos);
    for (Precision p : {Precision::fp16, Precision::bf16})
      CHECK_FALSE(has_op(step_ops(g, shapes_of(feeds), p), "LinearNorm"));
  }
  const LinearNormCase small{{3000, 10, 64}, 64, "", true, "", true, HReader::Later};  // 30000 rows
  const LinearNormCase wide{{4000, 10, 64}, 128, "", false, "", true, HReader::None};  // N = 128: two CTAs a row
  for (const LinearNormCase& c : {small, wide}) {
    const std::string what = describe(c);
    INFO(what);
    const Graph g = linear_norm_graph(c, what);
    const auto feeds = feeds_of(c, what);
    std::string declined;
    const std::vector<std::string> ops = step_ops(g, shapes_of(feeds), Precision::fp32, &declined);
    CHECK_FALSE(has_op(ops, "LinearNorm"));
    CHECK(has_op(ops, "LayerNormalization"));
    CHECK(declined.find("ie.LinearNorm cuda: ") != std::string::npos);
    CHECK(declined.find("(runs unfused)") != std::string::npos);
    check_against_cpu(g, feeds);
  }
  {
    const ScopedEnv ffma("IE_LINEAR_FP32", "ffma");
    const LinearNormCase early{{129, 64}, 64, "", false, "", true, HReader::Earlier};
    const std::string what = describe(early);
    INFO(what);
    const Graph g = linear_norm_graph(early, what);
    const auto feeds = feeds_of(early, what);
    const std::vector<std::string> ops = step_ops(g, shapes_of(feeds), Precision::fp32);
    CHECK_FALSE(has_op(ops, "LinearNorm"));  // the Relu reads h before the LayerNorm's place
    check_against_cpu(g, feeds);
  }
}

}  // namespace ie::test
