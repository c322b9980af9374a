// Fusion rule layer_norm_activation: LayerNormalization -> Gelu (either approximation), Relu, Tanh or Sigmoid
// becomes ie.LayerNorm; the fused run equals the unfused one; what the rule must not touch stays; both SSA
// exports (GELU as a Gelu node, and written out around Erf) get it twice.
#include <doctest/doctest.h>

#include <algorithm>

#include "engine/loader/onnx_loader.h"
#include "engine/planner/fusion.h"
#include "graph_builder.h"
#include "model_builder.h"

using namespace ie;
using test::GraphBuilder;

namespace {

const Shape kX = {3, 5, 16};

// x -> LayerNormalization(scale, bias) over the last dim -> "h" (scale and bias constants unless told).
GraphBuilder layer_norm_graph(bool constant_weights = true) {
  GraphBuilder b;
  b.input("x", {-1, 5, 16});
  std::vector<float> s(16), c(16);
  for (int i = 0; i < 16; ++i) s[i] = 0.5f + 0.05f * i, c[i] = -0.4f + 0.07f * i;
  if (constant_weights) {
    b.constant("scale", test::f32_tensor({16}, s)).constant("bias", test::f32_tensor({16}, c));
  } else {
    b.input("scale", {16}).input("bias", {16});
  }
  Attributes a;
  a.set_int("axis", -1);
  a.set_float("epsilon", 1e-5f);
  b.node("LayerNormalization", {"x", "scale", "bias"}, {"h"}, a, "norm");
  return b;
}

}  // namespace

TEST_CASE("fusion layer_norm_activation: Gelu (exact and tanh), Relu, Tanh and Sigmoid") {
  for (const char* act : {"Gelu", "GeluTanh", "Relu", "Tanh", "Sigmoid"}) {
    CAPTURE(act);
    GraphBuilder b = layer_norm_graph();
    const bool tanh_gelu = std::string(act) == "GeluTanh";
    Attributes a;
    if (tanh_gelu) a.set_string("approximate", "tanh");
    b.node(tanh_gelu ? "Gelu" : act, {"h"}, {"y"}, a, "act");
    Graph g = b.output("y").build();
    auto plan = test::plan_cpu(g, {{"x", kX}});
    CHECK(test::step_ops(*plan) == std::vector<std::string>{"ie.LayerNorm"});
    auto steps = test::steps_of(*plan, "ie.LayerNorm");
    REQUIRE(steps.size() == 1);
    CHECK(steps[0]->node.attrs.get_string("activation", "") == act);
    CHECK(test::sorted(steps[0]->node.covers) == std::vector<std::string>{"act", "norm"});
    CHECK(steps[0]->node.fusion == "layer_norm_activation");
    test::check_fused_equals_unfused(g, {{"x", test::random_tensor(kX, 5)}}, "layer_norm_activation");
  }
}

TEST_CASE("fusion layer_norm_activation: leaves alone a shared output, a graph output, statistics and inputs") {
  for (int variant = 0; variant < 4; ++variant) {
    CAPTURE(variant);
    GraphBuilder b = layer_norm_graph(variant != 3);
    b.node("Gelu", {"h"}, {"y"}, {}, "act");
    b.output("y");
    if (variant == 0) {  // h read twice
      b.node("Neg", {"h"}, {"z"}, {}, "side");
      b.output("z");
    }
    if (variant == 1) b.output("h");  // h a graph output
    Graph g = b.build();
    if (variant == 2) {  // the Mean output asked for
      for (Node& n : g.nodes)
        if (n.name == "norm") n.outputs = {"h", "mean"};
      g.outputs.push_back(g.outputs[0]);
      g.outputs.back().name = "mean";
    }
    // variant 3: scale and bias are graph inputs, not constants
    std::map<std::string, Shape> shapes = {{"x", kX}};
    if (variant == 3) shapes["scale"] = shapes["bias"] = Shape{16};
    auto plan = test::plan_cpu(g, shapes);
    CHECK(test::steps_of(*plan, "ie.LayerNorm").empty());
    CHECK(test::steps_of(*plan, "LayerNormalization").size() == 1);
  }
}

TEST_CASE("fusion layer_norm_activation: both SSA exports fuse their two LayerNorm + GELU pairs") {
  for (const char* file : {"ssa.onnx", "ssa_dynamo.onnx"}) {
    CAPTURE(file);
    Graph g = load_onnx(std::string(IE_SOURCE_DIR) + "/weights/" + file);
    auto plan = test::plan_cpu(g, {{"x", Shape{4, 320}}});
    auto fused = test::steps_of(*plan, "ie.LayerNorm");
    REQUIRE(fused.size() == 2);
    for (const Step* s : fused) CHECK(s->node.attrs.get_string("activation", "") == "Gelu");
    CHECK(plan->fusion.applied.at("layer_norm_activation") == 2);
    CHECK(test::steps_of(*plan, "Gelu").empty());
  }
}
