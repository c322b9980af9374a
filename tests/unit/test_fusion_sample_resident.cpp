// The sample_resident rule and the chain spec on the host: after the precision pass, both SSA exports in bf16 and
// fp16 become one ie.SampleResident node whose parts compile into a kernel spec (the Casts at its ends included,
// the graph's two outputs its outputs) that both the interpreting and the row-tile kernel take; in fp32 no chain
// forms. The planner's own stages are run here with every
// fused node accepted, since the CPU backend has no kernel for it (tests/gpu/test_cuda_sample_resident.cpp runs it).
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
  const std::map<std::string, Shape> shapes = {{"x", {batch, 320}}};
  InferenceResult inferred = infer_and_fold(g, shapes);
  g.remove_dead_nodes();
  apply_fusions(g, inferred.infos, {});
  ConstantStore store;
  lower_precision(g, p, store, shapes, inferred.infos);
  apply_fusions(g, inferred.infos, {}, nullptr, true);
  *infos = inferred.infos;
  return g;
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
      std::vector<TensorInfo> in;
      std::vector<const Tensor*> constants;
      for (auto& name : chain.inputs) {
        in.push_back(infos.at(name));
        auto c = g.constants.find(name);
        constants.push_back(c == g.constants.end() ? nullptr : &c->second);
      }
      sr::ChainSpec spec;
      std::string why;
      const bool ok = sample_resident_spec(chain, in, constants, g.opset, true, &spec, &why);
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

TEST_CASE("fusion sample_resident: no chain in fp32 (the kernel computes on fp16 and bf16 Tensor Cores)") {
  std::map<std::string, TensorInfo> infos;
  Graph g = planned("ssa.onnx", 3, Precision::fp32, &infos);
  for (const Node& n : g.nodes) CHECK(n.op_type != "SampleResident");
}
