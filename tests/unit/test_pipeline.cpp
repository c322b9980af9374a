// The batch pipeline on the CPU backend: batches come back in order and equal to one-at-a-time runs for odd batch
// counts (one batch, one sample, a last batch of one), outputs land in the caller's buffers, and an error in any
// stage reaches the caller naming its batch with nothing after it handed back.
#include <doctest/doctest.h>

#include <cstring>
#include <stdexcept>

#include "engine/api/pipeline.h"
#include "graph_builder.h"
#include "model_builder.h"
#include "tools/common/batch_runner.h"

using namespace ie;

namespace {

// Two outputs: y = relu(x W) carries the batch; z = -x keeps x's shape.
Engine small_engine(const std::string& backend = "cpu", std::vector<int> devices = {}) {
  test::GraphBuilder b;
  b.input("x", {-1, 4});
  b.constant("w", test::random_tensor({4, 3}, 5));
  b.node("MatMul", {"x", "w"}, {"m"}, {}, "matmul");
  b.node("Relu", {"m"}, {"y"}, {}, "relu");
  b.node("Neg", {"x"}, {"z"}, {}, "neg");
  Options options;
  options.backend = backend;
  options.devices = std::move(devices);
  return Engine::from_graph(b.output("y").output("z").build(), options);
}

// Batches of the given row counts, each with fresh values.
std::vector<TensorMap> batches_of(const std::vector<int64_t>& rows) {
  std::vector<TensorMap> out;
  for (size_t i = 0; i < rows.size(); ++i) out.push_back({{"x", test::random_tensor({rows[i], 4}, 100 + i)}});
  return out;
}

BatchReader reader_over(const std::vector<TensorMap>& batches) {
  return [&batches](size_t i, TensorMap& inputs) {
    if (i >= batches.size()) return false;
    inputs = batches[i];
    return true;
  };
}

}  // namespace

TEST_CASE("pipeline: batches come back in order, equal to one-at-a-time runs") {
  Engine engine = small_engine();
  for (const std::vector<int64_t>& rows :
       {std::vector<int64_t>{6}, std::vector<int64_t>{1}, std::vector<int64_t>{5, 5, 5, 1},
        std::vector<int64_t>{1, 1, 1}, std::vector<int64_t>{7, 3, 9, 2, 8}}) {
    auto batches = batches_of(rows);
    Session reference = engine.create_session();
    Pipeline pipeline(engine);
    CHECK(pipeline.sessions() == 1);  // the CPU finishes each batch before the next
    std::vector<size_t> seen;
    PipelineStats stats = pipeline.run(reader_over(batches), [&](size_t i, std::vector<Tensor>& outs) {
      seen.push_back(i);
      auto want = reference.run_ordered(batches.at(i));
      REQUIRE(outs.size() == 2);
      CHECK(bitwise_equal(outs[0], want[0]));
      CHECK(bitwise_equal(outs[1], want[1]));
    });
    REQUIRE(seen.size() == rows.size());
    for (size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == i);
    CHECK(stats.batches == rows.size());
    int64_t samples = 0;
    for (int64_t r : rows) samples += r;
    CHECK(stats.samples == samples);
    CHECK(stats.seconds >= 0);
  }
}

TEST_CASE("pipeline: outputs land in the caller's buffers") {
  Engine engine = small_engine();
  auto batches = batches_of({3, 4, 2});
  std::vector<std::vector<Tensor>> buffers;
  Pipeline pipeline(engine);
  pipeline.prepare({batches[0], batches[2]});
  pipeline.run(
      reader_over(batches),
      [&](size_t i, std::vector<Tensor>& outs) {
        CHECK(outs[0].data() == buffers.at(i)[0].data());
        CHECK(outs[1].data() == buffers.at(i)[1].data());
      },
      [&](size_t i, const std::vector<TensorDecl>& decls) {
        REQUIRE(decls.size() == 2);
        CHECK(decls[0].name == "y");
        CHECK(decls[0].dims == std::vector<int64_t>{batches[i].at("x").dim(0), 3});
        CHECK(decls[1].dims == batches[i].at("x").shape());
        buffers.push_back(
            {pipeline.allocate_host_tensor(decls[0].dtype, decls[0].dims), Tensor(decls[1].dtype, decls[1].dims)});
        return buffers.back();
      });
  Session reference = engine.create_session();
  for (size_t i = 0; i < batches.size(); ++i) {
    auto want = reference.run_ordered(batches[i]);
    CHECK(bitwise_equal(buffers[i][0], want[0]));
    CHECK(bitwise_equal(buffers[i][1], want[1]));
  }
}

TEST_CASE("pipeline: a reading error stops the stream after the batches before it") {
  Engine engine = small_engine();
  auto batches = batches_of({2, 2, 2, 2, 2, 2});
  Pipeline pipeline(engine);
  std::vector<size_t> seen;
  try {
    pipeline.run(
        [&](size_t i, TensorMap& inputs) {
          if (i == 3) fail_input("cannot decode images.idx: truncated");
          inputs = batches.at(i);
          return true;
        },
        [&](size_t i, std::vector<Tensor>&) { seen.push_back(i); });
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::BadInput);
    CHECK(std::string(e.what()).find("batch 3 (reading)") != std::string::npos);
    CHECK(std::string(e.what()).find("truncated") != std::string::npos);
  }
  CHECK(seen == std::vector<size_t>{0, 1, 2});
}

TEST_CASE("pipeline: a batch the model refuses stops the stream, naming it; the pipeline runs again after") {
  Engine engine = small_engine();
  auto batches = batches_of({2, 3, 2, 2});
  batches[2] = {{"x", test::random_tensor({2, 5}, 9)}};  // 5 features where the model takes 4
  Pipeline pipeline(engine);
  std::vector<size_t> seen;
  auto sink = [&](size_t i, std::vector<Tensor>&) { seen.push_back(i); };
  try {
    pipeline.run(reader_over(batches), sink);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::BadInput);
    CHECK(std::string(e.what()).find("batch 2 (starting)") != std::string::npos);
  }
  CHECK(seen == std::vector<size_t>{0, 1});
  seen.clear();
  batches.erase(batches.begin() + 2);
  pipeline.run(reader_over(batches), sink);
  CHECK(seen == std::vector<size_t>{0, 1, 2});
}

TEST_CASE("pipeline: an error in the sink or the destination stops the stream") {
  Engine engine = small_engine();
  auto batches = batches_of({2, 2, 2, 2});
  Pipeline pipeline(engine);
  std::vector<size_t> seen;
  CHECK_THROWS_AS(pipeline.run(reader_over(batches),
                               [&](size_t i, std::vector<Tensor>&) {
                                 seen.push_back(i);
                                 if (i == 1) throw std::runtime_error("disk full");
                               }),
                  std::runtime_error);
  CHECK(seen == std::vector<size_t>{0, 1});

  seen.clear();
  try {
    pipeline.run(
        reader_over(batches), [&](size_t i, std::vector<Tensor>&) { seen.push_back(i); },
        [&](size_t i, const std::vector<TensorDecl>& decls) {
          std::vector<Tensor> out;
          for (auto& d : decls) out.emplace_back(d.dtype, d.dims);
          if (i == 2) out[1] = Tensor(DType::Float32, {1});
          return out;
        });
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    CHECK(std::string(e.what()).find("batch 2 (starting)") != std::string::npos);
    CHECK(std::string(e.what()).find("output 'z' must be float32 [2,4]") != std::string::npos);
  }
  CHECK(seen == std::vector<size_t>{0, 1});
}

TEST_CASE("pipeline: options are checked") {
  Engine engine = small_engine();
  CHECK_THROWS_AS(Pipeline(engine, PipelineOptions{0, 2}), Error);
  CHECK_THROWS_AS(Pipeline(engine, PipelineOptions{2, 0}), Error);
  Pipeline pipeline(engine);
  CHECK_THROWS_AS(pipeline.run({}, {}), Error);
  auto none = [](size_t, TensorMap&) { return false; };
  PipelineStats stats = pipeline.run(none, [](size_t, std::vector<Tensor>&) { FAIL("no batch expected"); });
  CHECK(stats.batches == 0);
}

TEST_CASE("batch runner: the stream of batches equals one run over every sample") {
  Engine engine = small_engine();
  Tensor x = test::random_tensor({23, 4}, 77);
  auto whole = engine.create_session().run_ordered({{"x", x}});
  for (int64_t batch : {int64_t(1), int64_t(5), int64_t(22), int64_t(23), int64_t(100)}) {
    Pipeline pipeline(engine);
    auto examples = cli::batch_examples({{"x", x}}, batch);
    CHECK(examples.size() == (batch < 23 && 23 % batch ? 2u : 1u));
    pipeline.prepare(examples);
    cli::BatchRun run = cli::run_in_batches(pipeline, {{"x", x}}, batch, nullptr);
    CHECK(run.samples == 23);
    CHECK(run.batches == (23 + std::min<int64_t>(batch, 23) - 1) / std::min<int64_t>(batch, 23));
    REQUIRE(run.outputs.size() == 2);
    CHECK(bitwise_equal(run.outputs[0], whole[0]));
    CHECK(bitwise_equal(run.outputs[1], whole[1]));
  }
}

TEST_CASE("pipeline: batches split across an engine's devices come back in order") {
  // The host is one device (0); listing it twice gives two replicas, which exercises the split in CI.
  Engine engine = small_engine("cpu", {0, 0});
  CHECK(engine.device_count() == 2);
  auto batches = batches_of({3, 1, 4, 1, 5});
  Pipeline pipeline(engine, PipelineOptions{3, 2});
  CHECK(pipeline.devices() == 2);
  CHECK(pipeline.sessions() == 2);  // one per device on a synchronous backend
  Session reference = small_engine().create_session();
  std::vector<size_t> seen;
  pipeline.run(reader_over(batches), [&](size_t i, std::vector<Tensor>& outs) {
    seen.push_back(i);
    auto want = reference.run_ordered(batches.at(i));
    CHECK(bitwise_equal(outs[0], want[0]));
    CHECK(bitwise_equal(outs[1], want[1]));
  });
  CHECK(seen == std::vector<size_t>{0, 1, 2, 3, 4});
  CHECK_NOTHROW(engine.create_session(1));
  CHECK_THROWS_AS(engine.create_session(2), Error);
}

TEST_CASE("engine: devices that do not exist are refused by number") {
  for (const std::vector<int>& devices : {std::vector<int>{1}, std::vector<int>{0, 3}, std::vector<int>{-1}}) {
    try {
      small_engine("cpu", devices);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      const std::string msg = e.what();
      CHECK((msg.find("does not exist") != std::string::npos || msg.find("not a device number") != std::string::npos));
    }
  }
}
