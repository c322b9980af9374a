// The batch pipeline on the cuda backend: with 1, 2 and 3 batches in flight, both models' outputs equal a single
// session's bit for bit (same kernels), in batch order, for odd batch counts and sizes, with pageable and
// page-locked inputs and destinations; a batch the model refuses stops the stream after the batches before it.
#include <cstring>

#include "engine/api/pipeline.h"
#include "engine/backend/backend.h"
#include "gpu_test_util.h"

namespace ie::test {
namespace {

struct ModelCase {
  const char* file;
  std::vector<int64_t> sample;  // one sample's dims
};

std::vector<TensorMap> batches_for(const ModelCase& m, const std::vector<int64_t>& rows, unsigned seed) {
  std::vector<TensorMap> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<int64_t> shape{rows[i]};
    shape.insert(shape.end(), m.sample.begin(), m.sample.end());
    out.push_back({{"x", random_uniform(shape, seed + static_cast<unsigned>(i))}});
  }
  return out;
}

}  // namespace

TEST_CASE("pipeline on cuda: batches in flight equal one session's runs, in order") {
  IE_REQUIRE_GPU();
  const std::vector<int64_t> rows{37, 1, 37, 64, 5, 1};
  for (const ModelCase& m :
       {ModelCase{"weights/ssa_dynamo.onnx", {320}}, ModelCase{"weights/convnet.onnx", {1, 86, 86}}})
    for (Precision p : {Precision::fp32, Precision::bf16}) {
      Options options;
      options.backend = "cuda";
      options.precision = p;
      Engine engine = Engine::load(m.file, options);
      Session reference = engine.create_session();
      auto batches = batches_for(m, rows, 11);
      std::vector<std::vector<Tensor>> want;
      for (auto& b : batches) want.push_back(reference.run_ordered(b));
      for (int depth : {1, 2, 3})
        for (bool pinned : {false, true}) {
          CAPTURE(m.file);
          CAPTURE(precision_name(p));
          CAPTURE(depth);
          CAPTURE(pinned);
          Pipeline pipeline(engine, PipelineOptions{depth, 2});
          CHECK(pipeline.sessions() == static_cast<size_t>(depth));
          // Page-locked inputs go up by DMA directly; pageable ones through the pipeline's staging.
          std::vector<TensorMap> inputs = batches;
          if (pinned)
            for (auto& b : inputs) {
              Tensor host = pipeline.allocate_host_tensor(DType::Float32, b.at("x").shape());
              std::memcpy(host.data(), b.at("x").data(), host.nbytes());
              b["x"] = host;
            }
          std::vector<size_t> seen;
          std::vector<std::vector<Tensor>> kept;
          auto read = [&](size_t i, TensorMap& in) {
            if (i >= inputs.size()) return false;
            in = inputs[i];
            return true;
          };
          auto sink = [&](size_t i, std::vector<Tensor>& outs) {
            seen.push_back(i);
            REQUIRE(outs.size() == want[i].size());
            for (size_t k = 0; k < outs.size(); ++k) CHECK(bitwise_equal(outs[k], want[i][k]));
          };
          // Destinations page-locked or pageable, by the same flag: DMA straight in, or staged and copied.
          auto destination = [&](size_t, const std::vector<TensorDecl>& decls) {
            std::vector<Tensor> outs;
            for (auto& d : decls)
              outs.push_back(pinned ? pipeline.allocate_host_tensor(d.dtype, d.dims) : Tensor(d.dtype, d.dims));
            kept.push_back(outs);
            return outs;
          };
          PipelineStats stats = pipeline.run(read, sink, destination);
          CHECK(stats.batches == rows.size());
          REQUIRE(seen.size() == rows.size());
          for (size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == i);
          // Without a destination the outputs come in new tensors.
          seen.clear();
          pipeline.run(read, sink);
          CHECK(seen.size() == rows.size());
        }
    }
}

// prepare(examples, batches): a run too short to repay a second session keeps one per device (a single batch can
// never overlap another), a long one keeps them all; either way the outputs are the single session's.
TEST_CASE("pipeline on cuda: prepare keeps the sessions the run's batches can repay") {
  IE_REQUIRE_GPU();
  const ModelCase m{"weights/convnet.onnx", {1, 86, 86}};
  Options options;
  options.backend = "cuda";
  options.precision = Precision::bf16;
  Engine engine = Engine::load(m.file, options);
  auto batches = batches_for(m, {33}, 5);
  const std::vector<Tensor> want = engine.create_session().run_ordered(batches[0]);
  for (size_t run_batches : {size_t{1}, size_t{1} << 40}) {
    CAPTURE(run_batches);
    Pipeline pipeline(engine, PipelineOptions{3, 2});
    pipeline.prepare(batches, run_batches);
    CHECK(pipeline.sessions() == (run_batches == 1 ? 1u : 3u));
    size_t done = 0;
    pipeline.run(
        [&](size_t i, TensorMap& in) {
          if (i >= 4) return false;
          in = batches[0];
          return true;
        },
        [&](size_t, std::vector<Tensor>& outs) {
          ++done;
          REQUIRE(outs.size() == want.size());
          for (size_t k = 0; k < outs.size(); ++k) CHECK(bitwise_equal(outs[k], want[k]));
        });
    CHECK(done == 4);
  }
}

TEST_CASE("pipeline on cuda: a refused batch stops the stream after the batches before it") {
  IE_REQUIRE_GPU();
  Options options;
  options.backend = "cuda";
  Engine engine = Engine::load("weights/ssa_dynamo.onnx", options);
  ModelCase ssa{"weights/ssa_dynamo.onnx", {320}};
  auto batches = batches_for(ssa, {9, 9, 9, 9, 9, 9}, 3);
  batches[4] = {{"x", random_uniform({9, 321}, 5)}};
  Pipeline pipeline(engine, PipelineOptions{3, 2});
  std::vector<size_t> seen;
  try {
    pipeline.run(
        [&](size_t i, TensorMap& in) {
          if (i >= batches.size()) return false;
          in = batches[i];
          return true;
        },
        [&](size_t i, std::vector<Tensor>&) { seen.push_back(i); });
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::BadInput);
    CHECK(std::string(e.what()).find("batch 4 (starting)") != std::string::npos);
  }
  CHECK(seen == std::vector<size_t>{0, 1, 2, 3});
}

TEST_CASE("pipeline on cuda: batches split across devices equal one session's runs") {
  IE_REQUIRE_GPU();
  // Device 0 twice (two replicas on one GPU) always; 0 and 1 where a second GPU exists.
  std::vector<std::vector<int>> device_lists{{0, 0}};
  if (backend_device_count("cuda") > 1) device_lists.push_back({0, 1});
  ModelCase ssa{"weights/ssa_dynamo.onnx", {320}};
  auto batches = batches_for(ssa, {33, 7, 33, 33, 1, 19, 33}, 21);
  Options single;
  single.backend = "cuda";
  single.precision = Precision::bf16;
  Session reference = Engine::load(ssa.file, single).create_session();
  std::vector<std::vector<Tensor>> want;
  for (auto& b : batches) want.push_back(reference.run_ordered(b));
  for (auto& devices : device_lists) {
    CAPTURE(devices.size());
    CAPTURE(devices.back());
    Options options = single;
    options.devices = devices;
    Engine engine = Engine::load(ssa.file, options);
    Pipeline pipeline(engine, PipelineOptions{2, 2});
    CHECK(pipeline.devices() == 2);
    CHECK(pipeline.sessions() == 4);
    std::vector<size_t> seen;
    pipeline.run(
        [&](size_t i, TensorMap& in) {
          if (i >= batches.size()) return false;
          in = batches[i];
          return true;
        },
        [&](size_t i, std::vector<Tensor>& outs) {
          seen.push_back(i);
          for (size_t k = 0; k < outs.size(); ++k) CHECK(bitwise_equal(outs[k], want[i][k]));
        });
    CHECK(seen.size() == batches.size());
  }
}

}  // namespace ie::test
