// The sample_resident rule and the chain spec on the host: after the precision pass, both SSA exports in bf16 and
// fp16 become one ie.SampleResident node whose parts compile into a kernel spec (the Casts at its ends included,
// the graph's two outputs its outputs) that both the interpreting and the row-tile kernel take; both conv net exports
// end in one chain from the flatten to the output's Cast (fc3 + ReLU, fc4, softmax), which the row-tile kernel
// declines; in fp32 each SSA export is one float32 chain and the conv net has none. The planner's own stages are run
// here with every fused node accepted, since the CPU backend has no kernel for it
// (tests/gpu/test_cuda_sample_resident.cpp runs it).
#include <doctest/doctest.h>

#include "engine/backend/constant_store.h"
#include "engine/loader/onnx_loader.h"
#include "engine/planner/fusion.h"
#include "engine/planner/precision_pass.h"
#include "engine/planner/shape_inference.h"
#include "layers/sample_resident/row_tile_builder.h"
#include "layers/sample_resident/sample_resident_chain.h"

using namespace ie;

namespace {

// The graph as the planner lowers it: folded, fused, in the precision's storage type, then the late rules.
Graph planned(const std::string& file, int64_t batch, Precision p, std::map<std::string, TensorInfo>* infos) {
  Graph g = load_onnx(std::string(IE_SOURCE_DIR) + "/weights/" + file);
  const bool convnet = file.rfind("convnet", 0) == 0;
  const std::map<std::string, Shape> shapes = {{"x", convnet ? Shape{batch, 1, 86, 86} : Shape{batch, 320}}};
  InferenceResult inferred = infer_and_fold(g, shapes);
  g.remove_dead_nodes();
  apply_fusions(g, inferred.infos, {});
  ConstantStore store;
  lower_precision(g, p, store, shapes, inferred.infos);
  apply_fusions(g, inferred.infos, {}, nullptr, true);
  *infos = inferred.infos;
  return g;
}

// The chain's spec from the node's inputs as planned.
bool spec_of(const Graph& g, const Node& chain, const std::map<std::string, TensorInfo>& infos, sr::ChainSpec* spec,
             std::string* why) {
  std::vector<TensorInfo> in;
  std::vector<const Tensor*> constants;
  for (auto& name : chain.inputs) {
    in.push_back(infos.at(name));
    auto c = g.constants.find(name);
    constants.push_back(c == g.constants.end() ? nullptr : &c->second);
  }
  return sample_resident_spec(chain, in, constants, g.opset, true, spec, why);
}

}  // namespace

TEST_CASE("fusion sample_resident: each SSA export is one chain in bf16 and fp16, whose parts compile to a spec") {
  for (const char* file : {"ssa.onnx", "ssa_dynamo.onnx"})
    for (Precision p : {Precision::bf16, Precision::fp16}) {
      CAPTURE(file);
      CAPTURE(precision_name(p));
      std::map<std::string, TensorInfo> infos;
      Graph g = planned(file, 7, p, &infos);
      REQUIRE(g.nodes.size() == 1);
      const Node& chain = g.nodes[0];
      CHECK(chain.op_type == "SampleResident");
      CHECK(chain.outputs == std::vector<std::string>{"recon", "latent"});
      CHECK(chain.inputs[0] == "x");
      sr::ChainSpec spec;
      std::string why;
      const bool ok = spec_of(g, chain, infos, &spec, &why);
      INFO(why);
      REQUIRE(ok);
      CHECK(spec.compute == (p == Precision::bf16 ? sr::Elem::BF16 : sr::Elem::F16));
      CHECK(spec.ops.size() == 2 + 2 * 6 + 1 + 2 + 2);  // embed, LN+GELU; 2 x (LN, attention, proj, LN, fc1, fc2); ...
      CHECK(sr::chain_flops_per_sample(spec) == doctest::Approx(1525760.0));
      sr::Built built;
      CHECK(sr::build_program(spec, sr::Budget{}, &built, &why));
      CHECK(built.global_inputs == 1);
      CHECK(built.global_outputs == 2);
      // The row-tile kernel recognizes the engine's spec of both exports (its sizes and ends as the model has them).
      sr::RtBuilt rt;
      const bool rt_ok = sr::build_row_tile(spec, sr::RtBudget{}, &rt, &why);
      INFO(why);
      CHECK(rt_ok);
      CHECK(rt.model.seq == 10);
      CHECK(rt.model.slice == 32);
      CHECK(rt.model.blocks == 2);
      CHECK(rt.model.x_elem == sr::Elem::F32);
      CHECK(rt.model.recon_output == 0);
      CHECK(rt.model.latent_output == 1);
    }
}

TEST_CASE(
    "fusion sample_resident: the conv net's head (flatten, fc3 + ReLU, fc4, softmax, the output's cast) is one "
    "chain") {
  for (const char* file : {"convnet.onnx", "convnet_dynamo.onnx"})
    for (Precision p : {Precision::bf16, Precision::fp16}) {
      CAPTURE(file);
      CAPTURE(precision_name(p));
      std::map<std::string, TensorInfo> infos;
      Graph g = planned(file, 3, p, &infos);
      REQUIRE(!g.nodes.empty());
      const Node& chain = g.nodes.back();
      REQUIRE(chain.op_type == "SampleResident");
      CHECK(chain.outputs == std::vector<std::string>{"probs"});
      CHECK(infos.at("probs").dtype == DType::Float32);
      sr::ChainSpec spec;
      std::string why;
      const bool ok = spec_of(g, chain, infos, &spec, &why);
      INFO(why);
      REQUIRE(ok);
      REQUIRE(spec.ops.size() == 3);
      CHECK(spec.ops[0].op == sr::OpCode::Linear);
      CHECK(spec.ops[0].k == 1024);
      CHECK(spec.ops[0].n == 32);
      CHECK(spec.ops[0].act == 1);  // ReLU
      CHECK(spec.ops[1].op == sr::OpCode::Linear);
      CHECK(spec.ops[1].n == 10);
      CHECK(spec.ops[2].op == sr::OpCode::Softmax);
      sr::Built built;
      CHECK(sr::build_program(spec, sr::Budget{}, &built, &why));
      sr::RtBuilt rt;
      CHECK_FALSE(sr::build_row_tile(spec, sr::RtBudget{}, &rt, &why));  // not the transformer's form
    }
}

TEST_CASE("fusion sample_resident: in fp32 each SSA export is one float32 chain; the conv net's head is none") {
  // The float32 chain is the split sequence's (split_sequence.h): the transformer's form, its weights as floats.
  for (const char* file : {"ssa.onnx", "ssa_dynamo.onnx"}) {
    CAPTURE(file);
    std::map<std::string, TensorInfo> infos;
    Graph g = planned(file, 3, Precision::fp32, &infos);
    REQUIRE(g.nodes.size() == 1);
    REQUIRE(g.nodes[0].op_type == "SampleResident");
    sr::ChainSpec spec;
    std::string why;
    REQUIRE(spec_of(g, g.nodes[0], infos, &spec, &why));
    CHECK(spec.compute == sr::Elem::F32);
    for (const sr::ChainOp& op : spec.ops)
      if (op.op == sr::OpCode::Linear || op.op == sr::OpCode::Attention) {
        CHECK(op.w.empty());
        CHECK(op.w32.size() == static_cast<size_t>(op.k) * op.n * (op.op == sr::OpCode::Attention ? 3 : 1));
      }
    sr::RtBuilt rt;
    CHECK_FALSE(sr::build_row_tile(spec, sr::RtBudget{}, &rt, &why));  // the Tensor Core kernel: 16-bit only
  }
  // A chain of products alone (the conv net's head) has no float32 kernel: no chain.
  std::map<std::string, TensorInfo> infos;
  Graph g = planned("convnet.onnx", 3, Precision::fp32, &infos);
  for (const Node& n : g.nodes) CHECK(n.op_type != "SampleResident");
}
