// Fusion rule attention: multi-head self-attention written out node by node (head split, RoPE on q and k as the
// exporters write it, scaled scores, Softmax, product with v, head merge) becomes one ie.Attention; the fused run
// equals the unfused one at odd shapes, with and without RoPE and with every form of the scale; what the rule must
// not touch stays; both SSA exports fuse their two attentions.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "engine/loader/onnx_loader.h"
#include "engine/planner/fusion.h"
#include "graph_builder.h"
#include "model_builder.h"

using namespace ie;
using test::GraphBuilder;

namespace {

struct AttentionForm {
  int64_t seq = 5, heads = 3, dim = 6;
  bool rope = true;
  const char* scale = "Div";       // "Div", "Mul" or "" (no scale node)
  bool k_tables_differ = false;    // k rotated by other tables: not one RoPE
  bool softmax_is_output = false;  // an intermediate read outside the pattern
  int64_t projected_from = 0;      // > 0: q, k, v are MatMul (+ Add bias) of one input x of this width
  bool v_bias = true;              // v's projection has a bias
};

Tensor rope_table(int64_t seq, int64_t half, bool sine, float shift = 0.f) {
  std::vector<float> v;
  for (int64_t s = 0; s < seq; ++s)
    for (int64_t i = 0; i < half; ++i) {
      const double angle = s * std::pow(10000.0, -2.0 * i / (2.0 * half)) + shift;
      v.push_back(static_cast<float>(sine ? std::sin(angle) : std::cos(angle)));
    }
  return test::f32_tensor({seq, half}, v);
}

// The legacy exporter's form of one attention over graph inputs q, k, v [-1, S, H*D]; output "y".
Graph attention_graph(const AttentionForm& f) {
  const int64_t S = f.seq, H = f.heads, D = f.dim, E = H * D;
  GraphBuilder b;
  if (f.projected_from > 0) {
    const int64_t K = f.projected_from;
    b.input("x", {-1, S, K});
    unsigned seed = 40;
    for (const char* n : {"q", "k", "v"}) {
      const std::string w = std::string("w") + n, bias = std::string("b") + n;
      b.constant(w, test::random_tensor({K, E}, seed++)).constant(bias, test::random_tensor({E}, seed++));
      const bool has_bias = n[0] != 'v' || f.v_bias;  // without: the packed bias holds zeros there
      b.node("MatMul", {"x", w}, {has_bias ? std::string(n) + "_xw" : std::string(n)});
      if (has_bias) b.node("Add", {std::string(n) + "_xw", bias}, {n});
    }
  } else {
    b.input("q", {-1, S, E}).input("k", {-1, S, E}).input("v", {-1, S, E});
  }
  b.constant("split", test::i64_tensor({4}, {-1, S, H, D}))
      .constant("heads_back", test::i64_tensor({4}, {-1, H, S, D}));
  b.constant("merge", test::i64_tensor({3}, {-1, S, E}));
  b.constant("zero", test::i64_tensor({1}, {0})).constant("one", test::i64_tensor({1}, {1}));
  b.constant("end", test::i64_tensor({1}, {INT64_MAX})).constant("last", test::i64_tensor({1}, {3}));
  b.constant("two", test::i64_tensor({1}, {2})).constant("minus1", test::i64_tensor({1}, {-1}));
  b.constant("cos", rope_table(S, D / 2, false)).constant("sin", rope_table(S, D / 2, true));
  b.constant("cos_k", rope_table(S, D / 2, false, f.k_tables_differ ? 0.5f : 0.f));
  b.constant("scale", test::scalar_f32(f.scale[0] == 'M' ? 0.4f : 2.5f));
  Attributes t0213, t0132, last_axis;
  t0213.set_ints("perm", {0, 2, 1, 3});
  t0132.set_ints("perm", {0, 1, 3, 2});
  last_axis.set_int("axis", -1);
  for (const char* x : {"q", "k", "v"}) {
    const std::string n = x;
    b.node("Reshape", {n, "split"}, {n + "_split"});
    b.node("Transpose", {n + "_split"}, {n + "_heads"}, t0213);
  }
  auto rope = [&](const std::string& n, const std::string& cos) {
    if (!f.rope) return n + "_heads";
    b.node("Slice", {n + "_heads", "zero", "end", "last", "two"}, {n + "_e"});
    b.node("Slice", {n + "_heads", "one", "end", "last", "two"}, {n + "_o"});
    b.node("Mul", {n + "_e", cos}, {n + "_ec"});
    b.node("Mul", {n + "_o", "sin"}, {n + "_os"});
    b.node("Mul", {"sin", n + "_e"}, {n + "_es"});  // the table first: either operand order is accepted
    b.node("Mul", {n + "_o", cos}, {n + "_oc"});
    b.node("Sub", {n + "_ec", n + "_os"}, {n + "_re"});
    b.node("Add", {n + "_oc", n + "_es"}, {n + "_ro"});
    b.node("Unsqueeze", {n + "_re", "minus1"}, {n + "_re1"});
    b.node("Unsqueeze", {n + "_ro", "minus1"}, {n + "_ro1"});
    b.node("Concat", {n + "_re1", n + "_ro1"}, {n + "_pairs"}, last_axis);
    b.node("Reshape", {n + "_pairs", "heads_back"}, {n + "_rot"});
    return n + "_rot";
  };
  const std::string qr = rope("q", "cos"), kr = rope("k", "cos_k");
  b.node("Transpose", {kr}, {"kt"}, t0132);
  b.node("MatMul", {qr, "kt"}, {"scores"});
  std::string scores = "scores";
  if (f.scale[0]) {
    b.node(f.scale, {"scores", "scale"}, {"scaled"});
    scores = "scaled";
  }
  b.node("Softmax", {scores}, {"probs"}, last_axis);
  b.node("MatMul", {"probs", "v_heads"}, {"mixed"});
  b.node("Transpose", {"mixed"}, {"merged"}, t0213);
  b.node("Reshape", {"merged", "merge"}, {"y"});
  b.output("y");
  if (f.softmax_is_output) b.output("probs");
  return b.build();
}

std::map<std::string, Tensor> inputs_for(const AttentionForm& f, int64_t batch, unsigned seed) {
  const Shape s = {batch, f.seq, f.heads * f.dim};
  return {{"q", test::random_tensor(s, seed)},
          {"k", test::random_tensor(s, seed + 1)},
          {"v", test::random_tensor(s, seed + 2)}};
}

std::map<std::string, Shape> shapes_for(const AttentionForm& f, int64_t batch) {
  const Shape s = {batch, f.seq, f.heads * f.dim};
  return {{"q", s}, {"k", s}, {"v", s}};
}

}  // namespace

TEST_CASE("fusion attention: RoPE, scale and head merge become one ie.Attention equal to the unfused nodes") {
  AttentionForm odd;              // 3 heads of 6, 5 positions
  AttentionForm one{1, 1, 2};     // one position, one head of 2
  AttentionForm wide{17, 4, 16};  // SSA-like heads, a longer sequence
  AttentionForm mul_scale{7, 2, 8, true, "Mul"};
  AttentionForm no_scale{6, 2, 4, true, ""};
  AttentionForm no_rope{9, 5, 3, false, "Div"};  // odd head dim: fine without RoPE
  for (const AttentionForm& f : {odd, one, wide, mul_scale, no_scale, no_rope}) {
    CAPTURE(f.seq);
    CAPTURE(f.heads);
    CAPTURE(f.dim);
    CAPTURE(f.scale);
    Graph g = attention_graph(f);
    for (int64_t batch : {1, 3}) {
      auto plan = test::plan_cpu(g, shapes_for(f, batch));
      CHECK(test::step_ops(*plan) == std::vector<std::string>{"ie.Attention"});
      auto steps = test::steps_of(*plan, "ie.Attention");
      REQUIRE(steps.size() == 1);
      const Node& n = steps[0]->node;
      CHECK(n.fusion == "attention");
      CHECK(n.attrs.get_int("heads", 0) == f.heads);
      CHECK(n.attrs.get_string("rope", "") == (f.rope ? "interleaved" : "none"));
      const float scale = f.scale[0] == 'D' ? 1 / 2.5f : f.scale[0] == 'M' ? 0.4f : 1.f;
      CHECK(n.attrs.get_float("scale", 0.f) == doctest::Approx(scale));
      // Head split and merge (3 Reshapes, 4 Transposes), K^T, 2 MatMuls, Softmax, the scale, RoPE 12 per input.
      const size_t covered = 3 * 2 + 1 + 2 + 1 + 2 + (f.scale[0] ? 1 : 0) + (f.rope ? 24 : 0);
      CHECK(n.covers.size() == covered);
      test::check_fused_equals_unfused(g, inputs_for(f, batch, 11), "attention");
    }
  }
}

TEST_CASE("fusion attention: leaves alone other tables on k and an intermediate read elsewhere") {
  {
    AttentionForm f;
    f.k_tables_differ = true;
    Graph g = attention_graph(f);
    auto plan = test::plan_cpu(g, shapes_for(f, 2));
    CHECK(test::steps_of(*plan, "ie.Attention").empty());
    CHECK(test::steps_of(*plan, "Softmax").size() == 1);
  }
  {
    AttentionForm f;
    f.softmax_is_output = true;
    Graph g = attention_graph(f);
    auto plan = test::plan_cpu(g, shapes_for(f, 2));
    CHECK(test::steps_of(*plan, "ie.Attention").empty());
  }
}

TEST_CASE("fusion attention_projection: the q, k and v Linears of one input join the attention") {
  for (bool v_bias : {true, false})
    for (int64_t k : {8, 13}) {
      AttentionForm f{6, 3, 4, true, "Div"};
      f.projected_from = k;
      f.v_bias = v_bias;
      CAPTURE(k);
      CAPTURE(v_bias);
      Graph g = attention_graph(f);
      auto plan = test::plan_cpu(g, {{"x", Shape{3, 6, k}}});
      CHECK(test::step_ops(*plan) == std::vector<std::string>{"ie.Attention"});
      auto steps = test::steps_of(*plan, "ie.Attention");
      REQUIRE(steps.size() == 1);
      const Node& n = steps[0]->node;
      CHECK(n.attrs.get_int("projection", 0) == 1);
      CHECK(n.fusion == "attention_projection");
      CHECK(n.inputs[0] == "x");
      // The attention's 37 nodes, 3 MatMuls and the bias Adds.
      CHECK(n.covers.size() == 37 + 3 + (v_bias ? 3 : 2));
      test::check_fused_equals_unfused(g, {{"x", test::random_tensor({3, 6, k}, 9)}}, "attention_projection");
    }
}

TEST_CASE("fusion attention_projection: leaves alone a projection read elsewhere") {
  AttentionForm f{5, 2, 4, true, "Div"};
  f.projected_from = 8;
  Graph g = attention_graph(f);
  g.outputs.push_back(TensorDecl{"k", DType::Float32, {}, {}, false});
  auto plan = test::plan_cpu(g, {{"x", Shape{2, 5, 8}}});
  auto steps = test::steps_of(*plan, "ie.Attention");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0]->node.attrs.get_int("projection", 0) == 0);
}

TEST_CASE("fusion attention: both SSA exports fuse their two attentions with RoPE") {
  for (const char* file : {"ssa.onnx", "ssa_dynamo.onnx"}) {
    CAPTURE(file);
    Graph g = load_onnx(std::string(IE_SOURCE_DIR) + "/weights/" + file);
    auto plan = test::plan_cpu(g, {{"x", Shape{4, 320}}});
    CHECK(plan->fusion.applied.at("attention") == 2);
    CHECK(plan->fusion.applied.at("attention_projection") == 2);
    auto steps = test::steps_of(*plan, "ie.Attention");
    REQUIRE(steps.size() == 2);
    for (const Step* s : steps) {
      CHECK(s->node.attrs.get_int("heads", 0) == 4);
      CHECK(s->node.attrs.get_int("projection", 0) == 1);
      CHECK(s->node.attrs.get_string("rope", "") == "interleaved");
      CHECK(s->node.attrs.get_float("scale", 0.f) == doctest::Approx(0.25f));
      CHECK(s->node.covers.size() == 37 + 6);  // and the q, k, v MatMuls and bias Adds
    }
    CHECK(plan->steps.size() == 19);  // and four Reshapes that alias their inputs, without a step
    CHECK(plan->views.size() == 4);
  }
}
