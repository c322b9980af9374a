// Fusion rule linear_residual: ie.Linear (no activation) -> Add of a tensor of its output's shape becomes one
// ie.Linear with the residual as input 3, either side of the Add, with and without a bias; the fused run equals
// the unfused one; an activation in between, a broadcast Add or a shared product stay; both SSA exports fuse
// their four residual adds.
#include <doctest/doctest.h>

#include <algorithm>

#include "engine/loader/onnx_loader.h"
#include "engine/planner/fusion.h"
#include "graph_builder.h"
#include "model_builder.h"

using namespace ie;
using test::GraphBuilder;

namespace {

const Shape kX = {5, 6};

// x [-1, 6] -> MatMul W [6, 6] (-> Add bias) (-> act) -> "p"; then y = p + x (or x + p).
GraphBuilder residual_graph(bool bias, const char* act, bool residual_first) {
  GraphBuilder b;
  b.input("x", {-1, 6});
  b.constant("w", test::random_tensor({6, 6}, 1)).constant("bias", test::random_tensor({6}, 2));
  b.node("MatMul", {"x", "w"}, {bias ? "xw" : "lin"}, {}, "mm");
  if (bias) b.node("Add", {"xw", "bias"}, {"lin"}, {}, "add_bias");
  std::string p = "lin";
  if (act[0]) {
    b.node(act, {"lin"}, {"act_out"}, {}, "act");
    p = "act_out";
  }
  if (residual_first)
    b.node("Add", {"x", p}, {"y"}, {}, "add_residual");
  else
    b.node("Add", {p, "x"}, {"y"}, {}, "add_residual");
  return b;
}

}  // namespace

TEST_CASE("fusion linear_residual: the residual on either side, with and without a bias") {
  for (bool bias : {true, false})
    for (bool first : {false, true}) {
      CAPTURE(bias);
      CAPTURE(first);
      Graph g = residual_graph(bias, "", first).output("y").build();
      auto plan = test::plan_cpu(g, {{"x", kX}});
      CHECK(test::step_ops(*plan) == std::vector<std::string>{"ie.Linear"});
      auto steps = test::steps_of(*plan, "ie.Linear");
      REQUIRE(steps.size() == 1);
      const Node& n = steps[0]->node;
      REQUIRE(n.inputs.size() == 4);
      CHECK(n.inputs[3] == "x");
      CHECK(n.inputs[2].empty() == !bias);
      std::vector<std::string> covers = {"add_residual", "mm"};
      if (bias) covers.push_back("add_bias");
      CHECK(test::sorted(n.covers) == test::sorted(covers));
      CHECK(n.fusion == "linear_residual");
      test::check_fused_equals_unfused(g, {{"x", test::random_tensor(kX, 5)}}, "linear_residual");
    }
}

TEST_CASE("fusion linear_residual: leaves alone an activation in between, a broadcast add and a shared product") {
  {  // Relu between the product and the add: the residual would have to follow the activation
    Graph g = residual_graph(true, "Relu", false).output("y").build();
    auto plan = test::plan_cpu(g, {{"x", kX}});
    CHECK(test::step_ops(*plan) == std::vector<std::string>{"ie.Linear", "Add"});
    test::check_fused_equals_unfused(g, {{"x", test::random_tensor(kX, 5)}}, "linear_residual");
  }
  {  // the other operand broadcasts ([6] graph input): not a residual of Y's shape
    GraphBuilder b;
    b.input("x", {-1, 6}).input("r", {6});
    b.constant("w", test::random_tensor({6, 6}, 1));
    b.node("MatMul", {"x", "w"}, {"lin"}, {}, "mm");
    b.node("Add", {"lin", "r"}, {"y"}, {}, "add");
    Graph g = b.output("y").build();
    auto plan = test::plan_cpu(g, {{"x", kX}, {"r", Shape{6}}});
    CHECK(test::step_ops(*plan) == std::vector<std::string>{"ie.Linear", "Add"});
  }
  {  // the product is also a graph output
    GraphBuilder b = residual_graph(true, "", false);
    Graph g = b.output("y").output("lin").build();
    auto plan = test::plan_cpu(g, {{"x", kX}});
    CHECK(test::step_ops(*plan) == std::vector<std::string>{"ie.Linear", "Add"});
  }
}

TEST_CASE("fusion linear_residual: both SSA exports fuse their four residual adds") {
  for (const char* file : {"ssa.onnx", "ssa_dynamo.onnx"}) {
    CAPTURE(file);
    Graph g = load_onnx(std::string(IE_SOURCE_DIR) + "/weights/" + file);
    auto plan = test::plan_cpu(g, {{"x", Shape{4, 320}}});
    CHECK(plan->fusion.applied.at("linear_residual") == 4);
    CHECK(plan->steps.size() == 19);  // with the two attentions and their projections fused, the Reshapes views
  }
}
