// Fusion rules: each fires where it should (the fused step covers the replaced nodes), leaves alone what it must
// not touch, and the fused run equals the unfused run (fuse=false, disabled_fusions, IE_DISABLE_FUSIONS).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>

#include "engine/planner/fusion.h"
#include "engine/planner/shape_inference.h"
#include "graph_builder.h"
#include "model_builder.h"

using namespace ie;
using test::GraphBuilder;

namespace {

constexpr double kTolerance = 1e-5;
const Shape kRows = {5, 6};  // input shape the linear and GELU graphs are planned for

// Ops and covers of the steps of a plan built with every rule on.
struct Planned {
  std::unique_ptr<Plan> plan;
  const Step* step(const std::string& op) const {
    auto s = test::steps_of(*plan, op);
    return s.empty() ? nullptr : s[0];
  }
  std::vector<std::string> ops() const { return test::step_ops(*plan); }
};

Planned plan_of(const Graph& g, const Shape& x_shape, std::set<std::string> disabled = {}) {
  return Planned{test::plan_cpu(g, {{"x", x_shape}}, std::move(disabled))};
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Fused and unfused runs of `g` agree on random inputs, with fusion switched off each way the engine offers.
void check_fused_equals_unfused(const Graph& g, const Shape& x_shape, const std::string& rule) {
  std::map<std::string, Tensor> in = {{"x", test::random_tensor(x_shape, 11)}};
  auto fused = test::run_engine(g, in);
  Options off;
  off.fuse = false;
  Options rule_off;
  rule_off.disabled_fusions = {rule};
  for (auto& unfused :
       {test::run_engine(g, in, off), test::run_engine(g, in, rule_off), test::run_node_by_node(g, in)}) {
    REQUIRE(unfused.size() == fused.size());
    for (size_t i = 0; i < fused.size(); ++i) CHECK(test::max_abs_diff(fused[i], unfused[i]) <= kTolerance);
  }
}

Attributes attr_int(const char* name, int64_t v) {
  Attributes a;
  a.set_int(name, v);
  return a;
}

// --- GELU written out around Erf -------------------------------------------------------------------------------

enum class GeluForm { HalfXFirst, XTimesOneThenHalf, HalfTimesXFirst, OnePlusErfTimesHalfThenX, ErfSideFirst };

// Adds x -> gelu(x) -> `y` in the given form; returns the names of the five nodes. `c` is the Erf's divisor.
std::vector<std::string> add_gelu(GraphBuilder& b, GeluForm form, const std::string& x, const std::string& y,
                                  double c = std::sqrt(2.0)) {
  b.constant("sqrt2", test::scalar_f32(static_cast<float>(c)));
  b.constant("inv_sqrt2", test::scalar_f32(static_cast<float>(1.0 / c)));
  b.constant("one", test::scalar_f32(1.f)).constant("half", test::scalar_f32(0.5f));
  std::vector<std::string> names = {"scale", "erf", "plus_one", "mul_a", "mul_b"};
  if (form == GeluForm::XTimesOneThenHalf)
    b.node("Mul", {x, "inv_sqrt2"}, {"g_s"}, {}, "scale");
  else
    b.node("Div", {x, "sqrt2"}, {"g_s"}, {}, "scale");
  b.node("Erf", {"g_s"}, {"g_e"}, {}, "erf");
  if (form == GeluForm::XTimesOneThenHalf)
    b.node("Add", {"one", "g_e"}, {"g_a"}, {}, "plus_one");
  else
    b.node("Add", {"g_e", "one"}, {"g_a"}, {}, "plus_one");
  switch (form) {
    case GeluForm::HalfXFirst:  // x * 0.5 * (1 + erf(x / sqrt2))
      b.node("Mul", {x, "half"}, {"g_h"}, {}, "mul_a");
      b.node("Mul", {"g_h", "g_a"}, {y}, {}, "mul_b");
      break;
    case GeluForm::XTimesOneThenHalf:  // (x * (1 + erf(x * 0.7071))) * 0.5
      b.node("Mul", {x, "g_a"}, {"g_m"}, {}, "mul_a");
      b.node("Mul", {"g_m", "half"}, {y}, {}, "mul_b");
      break;
    case GeluForm::HalfTimesXFirst:  // 0.5 * x * (1 + erf(x / sqrt2))
      b.node("Mul", {"half", x}, {"g_h"}, {}, "mul_a");
      b.node("Mul", {"g_h", "g_a"}, {y}, {}, "mul_b");
      break;
    case GeluForm::OnePlusErfTimesHalfThenX:  // ((1 + erf) * 0.5) * x
      b.node("Mul", {"g_a", "half"}, {"g_m"}, {}, "mul_a");
      b.node("Mul", {x, "g_m"}, {y}, {}, "mul_b");
      break;
    case GeluForm::ErfSideFirst:  // (1 + erf) * (0.5 * x)
      b.node("Mul", {"half", x}, {"g_h"}, {}, "mul_a");
      b.node("Mul", {"g_a", "g_h"}, {y}, {}, "mul_b");
      break;
  }
  return names;
}

Graph gelu_graph(GeluForm form, double c = std::sqrt(2.0)) {
  GraphBuilder b;
  b.input("x", {-1, 6});
  add_gelu(b, form, "x", "y", c);
  return b.output("y").build();
}

}  // namespace

TEST_CASE("fusion gelu_from_erf: fires in every multiplication order") {
  for (GeluForm form : {GeluForm::HalfXFirst, GeluForm::XTimesOneThenHalf, GeluForm::HalfTimesXFirst,
                        GeluForm::OnePlusErfTimesHalfThenX, GeluForm::ErfSideFirst}) {
    CAPTURE(static_cast<int>(form));
    Graph g = gelu_graph(form);
    Planned p = plan_of(g, kRows);
    CHECK(p.ops() == std::vector<std::string>{"Gelu"});
    REQUIRE(p.step("Gelu"));
    CHECK(sorted(p.step("Gelu")->node.covers) == sorted({"scale", "erf", "plus_one", "mul_a", "mul_b"}));
    CHECK(p.step("Gelu")->node.fusion == "gelu_from_erf");
    CHECK(p.plan->fusion.applied.at("gelu_from_erf") == 1);
    check_fused_equals_unfused(g, kRows, "gelu_from_erf");
  }
}

namespace {

// The Erf pattern in `g` stays unfused, and the plan still computes the unfused result.
void check_gelu_not_fused(const Graph& g) {
  Planned p = plan_of(g, kRows);
  CHECK(!p.step("Gelu"));
  CHECK(p.step("Erf"));
  check_fused_equals_unfused(g, kRows, "gelu_from_erf");
}

}  // namespace

TEST_CASE("fusion gelu_from_erf: leaves alone what it must not touch") {
  GraphBuilder b;
  b.input("x", {-1, 6});
  SUBCASE("an intermediate with a second consumer") {
    add_gelu(b, GeluForm::HalfXFirst, "x", "y");
    b.node("Relu", {"g_a"}, {"side"});
    check_gelu_not_fused(b.output("y").output("side").build());
  }
  SUBCASE("an intermediate that is a graph output") {
    add_gelu(b, GeluForm::XTimesOneThenHalf, "x", "y");
    check_gelu_not_fused(b.output("y").output("g_e").build());
  }
  SUBCASE("Erf with the wrong constant") {
    Graph g = gelu_graph(GeluForm::HalfXFirst, 1.5);
    CHECK(plan_of(g, kRows).ops().size() == 5);
    check_gelu_not_fused(g);
  }
  SUBCASE("a half that is not 0.5") {
    Graph g = gelu_graph(GeluForm::HalfXFirst);
    g.constants["half"] = test::scalar_f32(0.25f);
    check_gelu_not_fused(g);
  }
}

// --- MatMul + Add and Gemm -> ie.Linear ---------------------------------------------------------------------------

namespace {

// x[batch, 6] -> MatMul "mm" by a constant w[6, 4] -> Add "add" of a constant bias -> `y`; the caller adds the rest.
GraphBuilder matmul_add(const std::string& y, Shape bias_shape = {4}, bool bias_first = false, int64_t opset = 17) {
  GraphBuilder b(opset);
  b.input("x", {-1, 6});
  b.constant("w", test::random_tensor({6, 4}, 1)).constant("bias", test::random_tensor(bias_shape, 2));
  b.node("MatMul", {"x", "w"}, {"xw"}, {}, "mm");
  if (bias_first)
    b.node("Add", {"bias", "xw"}, {y}, {}, "add");
  else
    b.node("Add", {"xw", "bias"}, {y}, {}, "add");
  return b;
}

}  // namespace

TEST_CASE("fusion linear: MatMul + Add with the bias on either side") {
  for (bool bias_first : {false, true}) {
    CAPTURE(bias_first);
    Graph g = matmul_add("y", {4}, bias_first).output("y").build();
    Planned p = plan_of(g, kRows);
    CHECK(p.ops() == std::vector<std::string>{"ie.Linear"});
    REQUIRE(p.step("ie.Linear"));
    CHECK(sorted(p.step("ie.Linear")->node.covers) == std::vector<std::string>{"add", "mm"});
    CHECK(p.step("ie.Linear")->node.inputs.size() == 3);
    check_fused_equals_unfused(g, kRows, "linear");
  }
}

TEST_CASE("fusion linear: a [1, n] bias, a bare MatMul and a batched input") {
  GraphBuilder b;
  b.input("x", {-1, 3, 6});
  b.constant("w", test::random_tensor({6, 4}, 1)).constant("bias", test::random_tensor({1, 4}, 2));
  b.constant("w2", test::random_tensor({4, 5}, 3));
  b.node("MatMul", {"x", "w"}, {"xw"}, {}, "mm");
  b.node("Add", {"xw", "bias"}, {"h"}, {}, "add");
  b.node("MatMul", {"h", "w2"}, {"y"}, {}, "mm2");
  Graph g = b.output("y").build();
  Planned p = plan_of(g, {2, 3, 6});
  CHECK(p.ops() == std::vector<std::string>{"ie.Linear", "ie.Linear"});
  CHECK(p.plan->steps[1].node.covers == std::vector<std::string>{"mm2"});
  check_fused_equals_unfused(g, {2, 3, 6}, "linear");
}

TEST_CASE("fusion linear: a bias of higher rank than the product keeps the Add's output shape") {
  Graph g = matmul_add("y", {1, 1, 4}).output("y").build();
  Planned p = plan_of(g, kRows);
  CHECK(p.plan->slots[p.plan->output_slots[0]].info.shape == Shape{1, 5, 4});
  auto fused = test::run_engine(g, {{"x", test::random_tensor(kRows, 4)}});
  CHECK(fused[0].shape() == Shape{1, 5, 4});
  check_fused_equals_unfused(g, kRows, "linear");
}

TEST_CASE("fusion linear: Gemm with transB 0 and 1") {
  for (int64_t trans_b : {0, 1}) {
    for (bool with_bias : {true, false}) {
      CAPTURE(trans_b);
      CAPTURE(with_bias);
      GraphBuilder b;
      b.input("x", {-1, 6});
      b.constant("w", test::random_tensor(trans_b ? Shape{4, 6} : Shape{6, 4}, 1));
      b.constant("c", test::random_tensor({4}, 2));
      std::vector<std::string> ins = {"x", "w"};
      if (with_bias) ins.push_back("c");
      b.node("Gemm", ins, {"y"}, attr_int("transB", trans_b), "gemm");
      Graph g = b.output("y").build();
      Planned p = plan_of(g, kRows);
      CHECK(p.ops() == std::vector<std::string>{"ie.Linear"});
      REQUIRE(p.step("ie.Linear"));
      CHECK(p.step("ie.Linear")->node.covers == std::vector<std::string>{"gemm"});
      CHECK(p.step("ie.Linear")->node.attrs.get_int("trans_w", -1) == trans_b);
      check_fused_equals_unfused(g, kRows, "linear");
    }
  }
}

TEST_CASE("fusion linear: leaves alone what it must not touch") {
  SUBCASE("MatMul with a non-constant weight") {
    GraphBuilder b;
    b.input("x", {-1, 6}).input("w", {6, 4});
    b.constant("bias", test::random_tensor({4}, 2));
    b.node("MatMul", {"x", "w"}, {"xw"});
    b.node("Add", {"xw", "bias"}, {"y"});
    Graph g = b.output("y").build();
    auto plan = test::plan_cpu(g, {{"x", kRows}, {"w", {6, 4}}});
    CHECK(test::step_ops(*plan) == std::vector<std::string>{"MatMul", "Add"});
  }
  SUBCASE("a MatMul output that is also a graph output keeps its Add") {
    Graph g = matmul_add("y").output("y").output("xw").build();
    Planned p = plan_of(g, kRows);
    CHECK(p.ops() == std::vector<std::string>{"ie.Linear", "Add"});
    CHECK(p.step("ie.Linear")->node.covers == std::vector<std::string>{"mm"});
    check_fused_equals_unfused(g, kRows, "linear");
  }
  SUBCASE("a MatMul output with a second consumer keeps its Add") {
    GraphBuilder b = matmul_add("y");
    b.node("Sigmoid", {"xw"}, {"z"}, {}, "side");
    Graph g = b.output("y").output("z").build();
    Planned p = plan_of(g, kRows);
    CHECK(p.step("Add"));
    CHECK(p.step("ie.Linear")->node.covers == std::vector<std::string>{"mm"});
    check_fused_equals_unfused(g, kRows, "linear");
  }
  SUBCASE("a bias that is not a vector over the last dim") {
    Graph g = matmul_add("y", {5, 4}).output("y").build();
    Planned p = plan_of(g, kRows, {"linear_residual"});
    CHECK(p.step("Add"));
    check_fused_equals_unfused(g, kRows, "linear");
    // With every rule on, a [5, 4] matrix of the product's shape is a residual (input 3), not a bias.
    Planned all = plan_of(g, kRows);
    REQUIRE(all.step("ie.Linear"));
    CHECK(all.ops() == std::vector<std::string>{"ie.Linear"});
    CHECK(all.step("ie.Linear")->node.inputs.size() == 4);
    CHECK(all.step("ie.Linear")->node.inputs[2].empty());
  }
}

TEST_CASE("fusion linear: leaves Gemm alone with alpha != 1, transA, beta != 1 or a matrix C") {
  for (const char* variant : {"alpha", "transA", "beta", "matrix C"}) {
    CAPTURE(variant);
    GraphBuilder b;
    std::string v = variant;
    b.input("x", v == "transA" ? Shape{6, -1} : Shape{-1, 6});
    b.constant("w", test::random_tensor({6, 4}, 1));
    b.constant("c", test::random_tensor(v == "matrix C" ? Shape{5, 4} : Shape{4}, 2));
    Attributes a;
    if (v == "alpha") a.set_float("alpha", 2.f);
    if (v == "transA") a.set_int("transA", 1);
    if (v == "beta") a.set_float("beta", 0.5f);
    b.node("Gemm", {"x", "w", "c"}, {"y"}, a, "gemm");
    Graph g = b.output("y").build();
    Shape shape = v == "transA" ? Shape{6, 5} : kRows;
    Planned p = plan_of(g, shape);
    CHECK(p.ops() == std::vector<std::string>{"Gemm"});
    check_fused_equals_unfused(g, shape, "linear");
  }
}

// --- Linear + activation ------------------------------------------------------------------------------------------

TEST_CASE("fusion linear_activation: Relu, Gelu, Tanh and Sigmoid") {
  for (const char* act : {"Relu", "Gelu", "Tanh", "Sigmoid"}) {
    CAPTURE(act);
    GraphBuilder b = matmul_add("h", {4}, false, 20);
    b.node(act, {"h"}, {"y"}, {}, "act");
    Graph g = b.output("y").build();
    Planned p = plan_of(g, kRows);
    CHECK(p.ops() == std::vector<std::string>{"ie.Linear"});
    REQUIRE(p.step("ie.Linear"));
    CHECK(p.step("ie.Linear")->node.attrs.get_string("activation", "") == act);
    CHECK(sorted(p.step("ie.Linear")->node.covers) == std::vector<std::string>{"act", "add", "mm"});
    CHECK(p.step("ie.Linear")->node.fusion == "linear_activation");
    check_fused_equals_unfused(g, kRows, "linear_activation");
  }
}

TEST_CASE("fusion linear_activation: absorbs a GELU recognised around Erf") {
  GraphBuilder b = matmul_add("h", {4}, true);
  add_gelu(b, GeluForm::HalfTimesXFirst, "h", "y");
  Graph g = b.output("y").build();
  Planned p = plan_of(g, kRows);
  CHECK(p.ops() == std::vector<std::string>{"ie.Linear"});
  REQUIRE(p.step("ie.Linear"));
  CHECK(p.step("ie.Linear")->node.attrs.get_string("activation", "") == "Gelu");
  CHECK(sorted(p.step("ie.Linear")->node.covers) ==
        sorted({"mm", "add", "scale", "erf", "plus_one", "mul_a", "mul_b"}));
  check_fused_equals_unfused(g, kRows, "linear_activation");
  check_fused_equals_unfused(g, kRows, "gelu_from_erf");
}

TEST_CASE("fusion linear_activation: leaves alone a shared output, a graph output and tanh-GELU") {
  for (int variant = 0; variant < 3; ++variant) {
    CAPTURE(variant);
    GraphBuilder b = matmul_add("h", {4}, false, 20);
    Attributes a;
    if (variant == 2) a.set_string("approximate", "tanh");
    b.node(variant == 2 ? "Gelu" : "Relu", {"h"}, {"y"}, a, "act");
    b.output("y");
    if (variant == 0) b.node("Neg", {"h"}, {"z"}).name = "side";
    if (variant == 0) b.output("z");
    if (variant == 1) b.output("h");
    Graph g = b.build();
    Planned p = plan_of(g, kRows);
    REQUIRE(p.step("ie.Linear"));
    CHECK(p.step("ie.Linear")->node.attrs.get_string("activation", "x") == "");
    CHECK(sorted(p.step("ie.Linear")->node.covers) == std::vector<std::string>{"add", "mm"});
    CHECK((p.step("Relu") || p.step("Gelu")));
    check_fused_equals_unfused(g, kRows, "linear_activation");
  }
}

// --- Conv -> Relu (-> MaxPool) -> ie.FusedConv --------------------------------------------------------------------

namespace {

const Shape kImage = {2, 3, 9, 9};

struct ConvGraph {
  bool pool = true;
  std::string auto_pad = "NOTSET";
  bool relu_second_consumer = false;
  bool conv_second_consumer = false;
  bool weight_is_input = false;
};

Graph conv_graph(const ConvGraph& o) {
  GraphBuilder b;
  b.input("x", {-1, 3, 9, 9});
  if (o.weight_is_input)
    b.input("w", {4, 3, 3, 3});
  else
    b.constant("w", test::random_tensor({4, 3, 3, 3}, 1));
  b.constant("bias", test::random_tensor({4}, 2));
  Attributes conv;
  conv.set_ints("pads", {1, 1, 1, 1});
  b.node("Conv", {"x", "w", "bias"}, {"c"}, conv, "conv");
  b.node("Relu", {"c"}, {"r"}, {}, "relu");
  std::string y = "r";
  if (o.pool) {
    Attributes pool;
    pool.set_ints("kernel_shape", {2, 2});
    pool.set_ints("strides", {2, 2});
    if (o.auto_pad != "NOTSET") pool.set_string("auto_pad", o.auto_pad);
    b.node("MaxPool", {"r"}, {"p"}, pool, "pool");
    y = "p";
  }
  b.output(y);
  if (o.relu_second_consumer) {
    b.node("Sigmoid", {"r"}, {"side"}, {}, "side");
    b.output("side");
  }
  if (o.conv_second_consumer) {
    b.node("Tanh", {"c"}, {"side_c"}, {}, "side_c");
    b.output("side_c");
  }
  return b.build();
}

void check_conv_fused_equals_unfused(const Graph& g) {
  std::map<std::string, Tensor> in = {{"x", test::random_tensor(kImage, 5)}};
  if (g.inputs.size() > 1) in["w"] = test::random_tensor({4, 3, 3, 3}, 1);
  auto fused = test::run_engine(g, in);
  Options off;
  off.fuse = false;
  auto unfused = test::run_engine(g, in, off);
  for (size_t i = 0; i < fused.size(); ++i) CHECK(test::max_abs_diff(fused[i], unfused[i]) <= kTolerance);
}

}  // namespace

TEST_CASE("fusion conv_relu_pool: with and without the MaxPool") {
  for (bool pool : {true, false}) {
    CAPTURE(pool);
    ConvGraph o;
    o.pool = pool;
    Graph g = conv_graph(o);
    Planned p = plan_of(g, kImage);
    CHECK(p.ops() == std::vector<std::string>{"ie.FusedConv"});
    REQUIRE(p.step("ie.FusedConv"));
    const Node& n = p.step("ie.FusedConv")->node;
    CHECK(n.attrs.get_string("pool", "?") == (pool ? "MaxPool" : ""));
    CHECK(n.attrs.get_string("activation", "") == "Relu");
    std::vector<std::string> covers = {"conv", "relu"};
    if (pool) covers.push_back("pool");
    CHECK(sorted(n.covers) == sorted(covers));
    CHECK(p.plan->slots[p.plan->output_slots[0]].info.shape == (pool ? Shape{2, 4, 4, 4} : Shape{2, 4, 9, 9}));
    check_conv_fused_equals_unfused(g);
  }
}

TEST_CASE("fusion conv_relu_pool: fused equals unfused over conv and pool attributes") {
  struct Case {
    Shape x;
    Shape w;
    std::vector<int64_t> conv_strides, conv_pads, conv_dilations;
    int64_t group;
    std::vector<int64_t> kernel, strides, pads;
    int64_t ceil_mode;
  };
  for (const Case& c :
       {Case{{2, 3, 9, 9}, {4, 3, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, {3, 3}, {2, 2}, {1, 1, 1, 1}, 1},
        Case{{1, 4, 10, 7}, {6, 2, 3, 2}, {2, 1}, {0, 1, 2, 0}, {1, 2}, 2, {2, 2}, {1, 1}, {0, 0, 0, 0}, 0},
        Case{{2, 2, 11, 11}, {3, 2, 1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, {3, 2}, {3, 2}, {0, 1, 1, 0}, 1},
        Case{{1, 3, 8, 8}, {5, 3, 5, 5}, {1, 1}, {2, 2, 2, 2}, {1, 1}, 1, {2, 2}, {2, 2}, {0, 0, 0, 0}, 1}}) {
    CAPTURE(shape_to_string(c.x));
    CAPTURE(shape_to_string(c.w));
    GraphBuilder b;
    b.input("x", c.x);
    b.constant("w", test::random_tensor(c.w, 1)).constant("bias", test::random_tensor({c.w[0]}, 2));
    Attributes conv;
    conv.set_ints("strides", c.conv_strides);
    conv.set_ints("pads", c.conv_pads);
    conv.set_ints("dilations", c.conv_dilations);
    conv.set_int("group", c.group);
    b.node("Conv", {"x", "w", "bias"}, {"c"}, conv, "conv");
    b.node("Relu", {"c"}, {"r"}, {}, "relu");
    Attributes pool;
    pool.set_ints("kernel_shape", c.kernel);
    pool.set_ints("strides", c.strides);
    pool.set_ints("pads", c.pads);
    pool.set_int("ceil_mode", c.ceil_mode);
    b.node("MaxPool", {"r"}, {"y"}, pool, "pool");
    Graph g = b.output("y").build();
    Planned p = plan_of(g, c.x);
    CHECK(p.ops() == std::vector<std::string>{"ie.FusedConv"});
    std::map<std::string, Tensor> in = {{"x", test::random_tensor(c.x, 5)}};
    Options off;
    off.fuse = false;
    auto fused = test::run_engine(g, in);
    auto unfused = test::run_engine(g, in, off);
    CHECK(fused[0].shape() == unfused[0].shape());
    CHECK(test::max_abs_diff(fused[0], unfused[0]) <= kTolerance);
  }
}

TEST_CASE("fusion conv_relu_pool: leaves alone what it must not touch") {
  ConvGraph o;
  SUBCASE("a Relu output feeding two nodes keeps its MaxPool") {
    o.relu_second_consumer = true;
    Graph g = conv_graph(o);
    Planned p = plan_of(g, kImage);
    REQUIRE(p.step("ie.FusedConv"));
    CHECK(sorted(p.step("ie.FusedConv")->node.covers) == std::vector<std::string>{"conv", "relu"});
    CHECK(p.step("MaxPool"));
    check_conv_fused_equals_unfused(g);
  }
  SUBCASE("a MaxPool with auto_pad") {
    o.auto_pad = "SAME_UPPER";
    Graph g = conv_graph(o);
    Planned p = plan_of(g, kImage);
    REQUIRE(p.step("ie.FusedConv"));
    CHECK(p.step("ie.FusedConv")->node.attrs.get_string("pool", "?") == "");
    CHECK(p.step("MaxPool"));
    check_conv_fused_equals_unfused(g);
  }
  SUBCASE("a Conv output feeding two nodes") {
    o.conv_second_consumer = true;
    Graph g = conv_graph(o);
    CHECK(!plan_of(g, kImage).step("ie.FusedConv"));
    check_conv_fused_equals_unfused(g);
  }
  SUBCASE("a Conv whose weight is not constant") {
    o.weight_is_input = true;
    Graph g = conv_graph(o);
    auto plan = test::plan_cpu(g, {{"x", kImage}, {"w", {4, 3, 3, 3}}});
    CHECK(test::steps_of(*plan, "ie.FusedConv").empty());
    check_conv_fused_equals_unfused(g);
  }
}

TEST_CASE("fusion conv_relu_pool: fuses Conv + Relu when the backend cannot pool in the epilogue") {
  Graph g = conv_graph(ConvGraph{});
  auto infos = infer_and_fold(g, {{"x", kImage}}).infos;
  std::vector<std::string> offered;
  FusionReport report = apply_fusions(g, infos, {}, [&](const Node& n) {
    offered.push_back(n.attrs.get_string("pool", "?"));
    return n.attrs.get_string("pool", "") != "MaxPool";
  });
  CHECK(offered == std::vector<std::string>{"MaxPool", ""});
  CHECK(report.applied.at("conv_relu_pool") == 1);
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].op_type == "FusedConv");
  CHECK(g.nodes[0].covers == std::vector<std::string>{"conv", "relu"});
  CHECK(g.nodes[0].outputs == std::vector<std::string>{"r"});
  CHECK(g.nodes[1].op_type == "MaxPool");
}

TEST_CASE("fusion linear: a backend that refuses the bias gets the bare product") {
  Graph g = matmul_add("y").output("y").build();
  auto infos = infer_and_fold(g, {{"x", kRows}}).infos;
  FusionReport report = apply_fusions(g, infos, {}, [](const Node& n) { return n.inputs.size() == 2; });
  CHECK(report.applied.at("linear") == 1);
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].op_type == "Linear");
  CHECK(g.nodes[0].covers == std::vector<std::string>{"mm"});
  CHECK(g.nodes[1].op_type == "Add");
}

// --- Switching rules off ------------------------------------------------------------------------------------------

namespace {

// One graph that every rule can fuse: conv -> relu -> pool -> flatten -> linear -> erf-GELU.
Graph all_rules_graph() {
  GraphBuilder b;
  b.input("x", {-1, 3, 9, 9});
  b.constant("w", test::random_tensor({4, 3, 3, 3}, 1));
  b.constant("fc", test::random_tensor({64, 6}, 2)).constant("fc_b", test::random_tensor({6}, 3));
  Attributes conv;
  conv.set_ints("pads", {1, 1, 1, 1});
  b.node("Conv", {"x", "w"}, {"c"}, conv, "conv");
  b.node("Relu", {"c"}, {"r"}, {}, "relu");
  Attributes pool;
  pool.set_ints("kernel_shape", {2, 2});
  pool.set_ints("strides", {2, 2});
  b.node("MaxPool", {"r"}, {"p"}, pool, "pool");
  b.node("Flatten", {"p"}, {"f"}, {}, "flatten");
  b.node("MatMul", {"f", "fc"}, {"h0"}, {}, "mm");
  b.node("Add", {"h0", "fc_b"}, {"h"}, {}, "add");
  add_gelu(b, GeluForm::HalfXFirst, "h", "y");
  return b.output("y").build();
}

// Sets an environment variable for one scope, restoring its previous state afterwards.
struct EnvVar {
  EnvVar(const char* name, const char* value) : m_name(name) {
    const char* old = std::getenv(name);
    m_had = old != nullptr;
    if (old) m_old = old;
    setenv(name, value, 1);
  }
  ~EnvVar() {
    if (m_had)
      setenv(m_name, m_old.c_str(), 1);
    else
      unsetenv(m_name);
  }
  const char* m_name;
  bool m_had = false;
  std::string m_old;
};

}  // namespace

TEST_CASE("fusion: disabling one rule by name leaves the others working") {
  Graph g = all_rules_graph();
  CHECK(sorted(fusion_rule_names()) == std::vector<std::string>{"attention", "attention_projection", "conv_input_cast",
                                                                "conv_pair", "conv_relu_pool", "gelu_from_erf",
                                                                "layer_norm_activation", "linear", "linear_activation",
                                                                "linear_residual", "sample_resident", "scaled_resize"});
  {
    Planned p = plan_of(g, kImage);
    CHECK(p.ops() == std::vector<std::string>{"ie.FusedConv", "ie.Linear"});
  }
  {
    Planned p = plan_of(g, kImage, {"gelu_from_erf"});
    CHECK(p.step("ie.FusedConv"));
    REQUIRE(p.step("ie.Linear"));
    CHECK(p.step("ie.Linear")->node.attrs.get_string("activation", "?") == "");
    CHECK(p.step("Erf"));
  }
  {
    Planned p = plan_of(g, kImage, {"linear"});
    CHECK(p.step("ie.FusedConv"));
    CHECK(p.step("Gelu"));
    CHECK(p.step("MatMul"));
    CHECK(!p.step("ie.Linear"));
  }
  {
    Planned p = plan_of(g, kImage, {"linear_activation"});
    CHECK(p.ops() == std::vector<std::string>{"ie.FusedConv", "ie.Linear", "Gelu"});
  }
  {
    Planned p = plan_of(g, kImage, {"conv_relu_pool"});
    CHECK(p.ops() == std::vector<std::string>{"Conv", "Relu", "MaxPool", "ie.Linear"});
  }
  {
    Planned p = plan_of(g, kImage, {"all"});
    CHECK(p.ops().size() == 10);  // and Flatten, a view without a step
    CHECK(p.plan->fusion.applied.empty());
  }
}

TEST_CASE("fusion: Options and IE_DISABLE_FUSIONS switch rules off, results stay equal") {
  Graph g = all_rules_graph();
  std::map<std::string, Tensor> in = {{"x", test::random_tensor(kImage, 3)}};
  auto fused = test::run_engine(g, in);
  Options opts{"cpu"};
  opts.disabled_fusions = {"conv_relu_pool", "linear"};
  std::string text = Engine::from_graph(g, opts).describe({{"x", kImage}});
  CHECK(text.find("FusedConv") == std::string::npos);
  CHECK(text.find("gelu_from_erf x1") != std::string::npos);
  CHECK(test::max_abs_diff(test::run_engine(g, in, opts)[0], fused[0]) <= kTolerance);
  {
    EnvVar env("IE_DISABLE_FUSIONS", "gelu_from_erf,conv_relu_pool");
    Engine engine = Engine::from_graph(g, Options{"cpu"});
    std::string t = engine.describe({{"x", kImage}});
    CHECK(t.find("FusedConv") == std::string::npos);
    CHECK(t.find("gelu_from_erf") == std::string::npos);
    CHECK(t.find("linear x1") != std::string::npos);
    CHECK(test::max_abs_diff(engine.create_session().run_ordered(in)[0], fused[0]) <= kTolerance);
  }
  Options off{"cpu"};
  off.fuse = false;
  std::string none = Engine::from_graph(g, off).describe({{"x", kImage}});
  CHECK(none.find("fusions: none") != std::string::npos);
  CHECK(test::max_abs_diff(test::run_engine(g, in, off)[0], fused[0]) <= kTolerance);
}
