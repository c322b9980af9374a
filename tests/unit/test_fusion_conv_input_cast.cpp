// The conv_input_cast rule on the host: in fp16 and bf16 the precision pass puts a Cast of the conv net's float32
// input in front of conv1; the late rule folds it into the ie.FusedConv, which then reads float32 and writes the
// 16-bit type, and keeps the Cast and the original node as its parts (what runs when no kernel set takes it). In
// fp32 there is no Cast to fold. The planner's stages are run here with every fused node accepted
// (tests/gpu/test_cuda_fused_conv.cpp runs the node on the GPU).
#include <doctest/doctest.h>

#include <set>

#include "engine/backend/constant_store.h"
#include "engine/loader/onnx_loader.h"
#include "engine/planner/fusion.h"
#include "engine/planner/precision_pass.h"
#include "engine/planner/shape_inference.h"

using namespace ie;

namespace {

// The graph as the planner lowers it: folded, fused, in the precision's storage type, then the late rules.
Graph planned(Precision p, std::map<std::string, TensorInfo>* infos,
              const std::set<std::string>& disabled = {"sample_resident", "conv_pair"}) {
  Graph g = load_onnx(std::string(IE_SOURCE_DIR) + "/weights/convnet.onnx");
  const std::map<std::string, Shape> shapes = {{"x", {5, 1, 86, 86}}};
  InferenceResult inferred = infer_and_fold(g, shapes);
  g.remove_dead_nodes();
  apply_fusions(g, inferred.infos, {});
  ConstantStore store;
  lower_precision(g, p, store, shapes, inferred.infos);
  apply_fusions(g, inferred.infos, disabled, nullptr, true);
  *infos = infer_and_fold(g, shapes).infos;
  return g;
}

}  // namespace

TEST_CASE("fusion conv_input_cast: conv1 reads the float32 input in fp16 and bf16, the Cast kept as a part") {
  for (Precision p : {Precision::bf16, Precision::fp16}) {
    CAPTURE(precision_name(p));
    std::map<std::string, TensorInfo> infos;
    Graph g = planned(p, &infos);
    REQUIRE(!g.nodes.empty());
    const Node& conv1 = g.nodes[0];
    CHECK(conv1.op_type == "FusedConv");
    CHECK(conv1.inputs[0] == "x");
    CHECK(infos.at("x").dtype == DType::Float32);
    CHECK(infos.at(conv1.outputs[0]).dtype == storage_dtype(p));
    REQUIRE(conv1.replaced.size() == 2);
    CHECK(conv1.replaced[0].op_type == "Cast");
    CHECK(conv1.replaced[1].op_type == "FusedConv");
    CHECK(conv1.replaced[1].replaced.size() == 3);  // Conv, Relu, MaxPool
    const std::vector<std::string> covers = {"x/" + std::string(precision_name(p)) + "/cast", "/conv1/Conv", "/Relu",
                                             "/MaxPool"};
    CHECK(conv1.covers == covers);
    for (const Node& n : g.nodes) CHECK(!(n.op_type == "Cast" && n.inputs[0] == "x"));
  }
}

TEST_CASE("fusion conv_input_cast: nothing to fold in fp32, and switched off by name") {
  std::map<std::string, TensorInfo> infos;
  Graph g = planned(Precision::fp32, &infos);
  CHECK(g.nodes[0].op_type == "FusedConv");
  CHECK(g.nodes[0].replaced.size() == 3);

  Graph off = planned(Precision::bf16, &infos, {"conv_input_cast", "sample_resident", "conv_pair"});
  CHECK(off.nodes[0].op_type == "Cast");
  CHECK(off.nodes[1].op_type == "FusedConv");
  CHECK(off.nodes[1].inputs[0] != "x");
}

// The conv_pair rule (after conv_input_cast): conv1 and conv2 as one ie.FusedConvPair whose parts are the two
// FusedConv nodes (what runs where no kernel set takes the pair), inputs X, W1, B1, W2, B2.
TEST_CASE("fusion conv_pair: conv1 and conv2 as one node, the two FusedConv nodes kept as its parts") {
  for (Precision p : {Precision::bf16, Precision::fp32}) {
    CAPTURE(precision_name(p));
    std::map<std::string, TensorInfo> infos;
    Graph g = planned(p, &infos, {"sample_resident"});
    REQUIRE(!g.nodes.empty());
    const Node& pair = g.nodes[0];
    CHECK(pair.op_type == "FusedConvPair");
    CHECK(pair.domain == "ie");
    REQUIRE(pair.inputs.size() == 5);
    CHECK(pair.inputs[0] == "x");
    REQUIRE(pair.replaced.size() == 2);
    CHECK(pair.replaced[0].op_type == "FusedConv");
    CHECK(pair.replaced[1].op_type == "FusedConv");
    CHECK(pair.inputs[1] == pair.replaced[0].inputs[1]);
    CHECK(pair.inputs[3] == pair.replaced[1].inputs[1]);
    CHECK(pair.replaced[1].inputs[0] == pair.replaced[0].outputs[0]);
    CHECK(pair.outputs[0] == pair.replaced[1].outputs[0]);
    CHECK(infos.at(pair.outputs[0]).shape == Shape{5, 16, 8, 8});
    CHECK(infos.at(pair.outputs[0]).dtype == storage_dtype(p));
    const std::set<std::string> covers(pair.covers.begin(), pair.covers.end());
    for (const char* part : {"/conv1/Conv", "/conv2/Conv", "/MaxPool", "/MaxPool_1"}) CHECK(covers.count(part) == 1);
  }
}
