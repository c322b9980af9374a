// Session::profile on the CPU backend, the op cost model, and the device-peaks cache.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "engine/api/engine.h"
#include "engine/backend/backend.h"
#include "engine/profile/device_peaks.h"
#include "engine/registry/node_runner.h"

namespace fs = std::filesystem;

namespace {

ie::Tensor random_tensor(std::vector<int64_t> shape, uint32_t seed) {
  ie::Tensor t(ie::DType::Float32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(0.0f, 1.0f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = d(rng);
  return t;
}

// Profiles a model on the CPU and checks the report against the steps an observer sees.
void check_profile(const std::string& model, std::vector<int64_t> shape) {
  ie::Options opts;
  opts.backend = "cpu";
  ie::Engine engine = ie::Engine::load(std::string(IE_SOURCE_DIR) + "/" + model, opts);
  ie::Session session = engine.create_session();
  std::map<std::string, ie::Tensor> inputs{{engine.inputs().at(0).name, random_tensor(shape, 7)}};
  size_t events = 0;
  session.set_observer([&](const ie::StepEvent&) { ++events; });
  auto before = session.run_ordered(inputs);
  session.set_observer(nullptr);

  ie::ProfileReport r = session.profile(inputs, 1, 5);
  CAPTURE(model);
  CHECK(r.backend == "cpu");
  CHECK(!r.device.empty());
  CHECK(r.iterations == 5);
  REQUIRE(events > 0);
  REQUIRE(r.steps.size() == events);
  double sum = 0;
  bool any_flops = false, any_bytes = false;
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const ie::StepProfile& s = r.steps[i];
    CAPTURE(s.name);
    CHECK(s.index == i);
    CHECK(!s.op.empty());
    CHECK(!s.covers.empty());
    CHECK(!s.output_shapes.empty());
    CHECK(s.median_ms > 0);
    CHECK(s.min_ms <= s.median_ms);
    CHECK(s.median_ms <= s.max_ms);
    CHECK(s.bytes >= 0);  // views (Reshape ...) move nothing
    any_flops = any_flops || s.flops > 0;
    any_bytes = any_bytes || s.bytes > 0;
    sum += s.median_ms;
  }
  CHECK(any_flops);
  CHECK(any_bytes);
  CHECK(r.total_ms == doctest::Approx(sum));
  // Profiling leaves the plan alone: the outputs are unchanged.
  auto after = session.run_ordered(inputs);
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i)
    CHECK(std::memcmp(after[i].data(), before[i].data(), after[i].nbytes()) == 0);
}

ie::OpCost cost_of(const ie::Node& node, std::vector<std::vector<int64_t>> in_shapes, std::vector<int64_t> out_shape) {
  std::vector<ie::TensorInfo> ins, outs;
  for (auto& s : in_shapes) ins.push_back({ie::DType::Float32, s});
  outs.push_back({ie::DType::Float32, out_shape});
  return ie::OpRegistry::get().cost(node, ins, outs);
}

double bytes_of(std::vector<std::vector<int64_t>> shapes) {
  double b = 0;
  for (auto& s : shapes) {
    double n = 1;
    for (auto d : s) n *= static_cast<double>(d);
    b += 4 * n;
  }
  return b;
}

// Sets XDG_CACHE_HOME to a fresh folder for one test and restores it afterwards.
struct TempCache {
  fs::path dir;
  std::string old;
  bool had_old = false;
  TempCache() {
    dir = fs::temp_directory_path() / ("ie-peaks-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir);
    if (const char* v = std::getenv("XDG_CACHE_HOME")) {
      old = v;
      had_old = true;
    }
    setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  }
  ~TempCache() {
    if (had_old)
      setenv("XDG_CACHE_HOME", old.c_str(), 1);
    else
      unsetenv("XDG_CACHE_HOME");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

TEST_CASE("profile: one entry per step with positive times on the CPU (convnet)") {
  check_profile("weights/convnet.onnx", {3, 1, 86, 86});
}

TEST_CASE("profile: one entry per step with positive times on the CPU (ssa)") {
  check_profile("weights/ssa.onnx", {5, 320});
}

TEST_CASE("profile: bad arguments are usage errors") {
  ie::Options opts;
  opts.backend = "cpu";
  ie::Engine engine = ie::Engine::load(std::string(IE_SOURCE_DIR) + "/weights/ssa.onnx", opts);
  ie::Session session = engine.create_session();
  std::map<std::string, ie::Tensor> inputs{{engine.inputs().at(0).name, random_tensor({2, 320}, 3)}};
  CHECK_THROWS_AS(session.profile(inputs, 0, 0), ie::Error);
  CHECK_THROWS_AS(session.profile(inputs, -1, 3), ie::Error);
}

TEST_CASE("run_timed and run_staged split a run into phases on the CPU") {
  ie::Options opts;
  opts.backend = "cpu";
  ie::Engine engine = ie::Engine::load(std::string(IE_SOURCE_DIR) + "/weights/ssa.onnx", opts);
  ie::Session session = engine.create_session();
  std::map<std::string, ie::Tensor> inputs{{engine.inputs().at(0).name, random_tensor({4, 320}, 5)}};
  auto reference = session.run_ordered(inputs);
  ie::RunTiming t;
  auto outs = session.run_timed(inputs, &t);
  CHECK(t.compute_ms > 0);
  CHECK(t.wall_ms >= t.compute_ms);
  CHECK(std::memcmp(outs[0].data(), reference[0].data(), outs[0].nbytes()) == 0);
  size_t set = session.stage_inputs(inputs);
  ie::RunTiming s = session.run_staged(set);
  CHECK(s.compute_ms > 0);
  CHECK(s.fetch_ms == 0);
  CHECK_THROWS_AS(session.run_staged(set + 1), ie::Error);
  session.clear_staged();
  CHECK_THROWS_AS(session.run_staged(set), ie::Error);
}

TEST_CASE("cost model: Conv flops are 2*N*Cout*Hout*Wout*Cin/g*kh*kw") {
  ie::Attributes attrs;
  attrs.set_ints("pads", {1, 1, 1, 1});
  attrs.set_ints("strides", {2, 2});
  ie::Node conv = ie::make_node("Conv", {"x", "w", "b"}, {"y"}, attrs);
  // X [2,3,11,13], W [5,3,3,3]: Hout = (11+2-3)/2+1 = 6, Wout = (13+2-3)/2+1 = 7.
  ie::OpCost c = cost_of(conv, {{2, 3, 11, 13}, {5, 3, 3, 3}, {5}}, {2, 5, 6, 7});
  CHECK(c.flops == 2.0 * 2 * 5 * 6 * 7 * 3 * 3 * 3);  // 22680
  CHECK(c.bytes == bytes_of({{2, 3, 11, 13}, {5, 3, 3, 3}, {5}, {2, 5, 6, 7}}));

  ie::Attributes grouped;
  grouped.set_int("group", 2);
  ie::Node gconv = ie::make_node("Conv", {"x", "w"}, {"y"}, grouped);
  // X [1,4,8,8], W [6,2,3,3], 2 groups: 6x6 outputs, each a 2*3*3 dot product.
  CHECK(cost_of(gconv, {{1, 4, 8, 8}, {6, 2, 3, 3}}, {1, 6, 6, 6}).flops == 2.0 * 1 * 6 * 6 * 6 * 2 * 3 * 3);
}

TEST_CASE("cost model: FusedConv counts the convolution before its pool") {
  ie::Attributes attrs;
  attrs.set_string("activation", "Relu");
  attrs.set_string("pool", "MaxPool");
  attrs.set_ints("pool_kernel_shape", {2, 2});
  attrs.set_ints("pool_strides", {2, 2});
  ie::Node fused = ie::make_node("FusedConv", {"x", "w", "b"}, {"y"}, attrs, "ie");
  // X [3,1,10,10], W [4,1,5,5]: conv out 6x6, pooled 3x3.
  ie::OpCost c = cost_of(fused, {{3, 1, 10, 10}, {4, 1, 5, 5}, {4}}, {3, 4, 3, 3});
  CHECK(c.flops == 2.0 * 3 * 4 * 6 * 6 * 1 * 5 * 5);  // 21600
}

TEST_CASE("cost model: Gemm, MatMul and Linear flops are 2*M*N*K*batch") {
  ie::Attributes t;
  t.set_int("transB", 1);
  ie::Node gemm = ie::make_node("Gemm", {"a", "b", "c"}, {"y"}, t);
  // A [7,5], B [3,5] transposed: M 7, N 3, K 5.
  ie::OpCost g = cost_of(gemm, {{7, 5}, {3, 5}, {3}}, {7, 3});
  CHECK(g.flops == 2.0 * 7 * 3 * 5);
  CHECK(g.bytes == bytes_of({{7, 5}, {3, 5}, {3}, {7, 3}}));

  ie::Attributes ta;
  ta.set_int("transA", 1);
  ie::Node gemm_ta = ie::make_node("Gemm", {"a", "b"}, {"y"}, ta);
  CHECK(cost_of(gemm_ta, {{5, 7}, {5, 3}}, {7, 3}).flops == 2.0 * 7 * 3 * 5);

  ie::Node mm = ie::make_node("MatMul", {"a", "b"}, {"y"});
  CHECK(cost_of(mm, {{2, 4, 7, 5}, {5, 3}}, {2, 4, 7, 3}).flops == 2.0 * 2 * 4 * 7 * 3 * 5);

  ie::Node linear = ie::make_node("Linear", {"a", "w", "b"}, {"y"}, {}, "ie");
  CHECK(cost_of(linear, {{9, 320}, {64, 320}, {64}}, {9, 64}).flops == 2.0 * 9 * 64 * 320);
}

TEST_CASE("cost model: per-element ops and the default") {
  ie::Node relu = ie::make_node("Relu", {"x"}, {"y"});
  CHECK(cost_of(relu, {{3, 5}}, {3, 5}).flops == 15);
  ie::Node add = ie::make_node("Add", {"a", "b"}, {"y"});
  CHECK(cost_of(add, {{3, 5}, {5}}, {3, 5}).flops == 15);
  ie::Node gelu = ie::make_node("Gelu", {"x"}, {"y"});
  CHECK(cost_of(gelu, {{3, 5}}, {3, 5}).flops == 150);
  ie::Node softmax = ie::make_node("Softmax", {"x"}, {"y"});
  CHECK(cost_of(softmax, {{3, 5}}, {3, 5}).flops == 75);
  ie::Node ln = ie::make_node("LayerNormalization", {"x", "s", "b"}, {"y"});
  CHECK(cost_of(ln, {{3, 5}, {5}, {5}}, {3, 5}).flops == 120);
  // No cost function: no flops, bytes of every input and output.
  ie::Node transpose = ie::make_node("Transpose", {"x"}, {"y"});
  ie::OpCost t = cost_of(transpose, {{3, 5}}, {5, 3});
  CHECK(t.flops == 0);
  CHECK(t.bytes == bytes_of({{3, 5}, {5, 3}}));
}

TEST_CASE("device peaks: JSON round trip and file names") {
  ie::DevicePeaks p;
  p.device = "NVIDIA H100 80GB HBM3";
  p.copy_gbps = 2900;
  p.fp32_tflops = 51;
  p.tf32_tflops = 380;
  p.fp16_tflops = 700;
  p.measured_at = "2025-01-01T00:00:00Z";
  ie::DevicePeaks q = ie::peaks_from_json(ie::peaks_to_json(p), "test");
  CHECK(q.device == p.device);
  CHECK(q.copy_gbps == 2900);
  CHECK(q.tflops_for(ie::Precision::tf32) == 380);
  CHECK(q.tflops_for(ie::Precision::fp16) == 700);
  CHECK(q.tflops_for(ie::Precision::fp32) == 51);
  q.tf32_tflops = 0;
  CHECK(q.tflops_for(ie::Precision::tf32) == 51);  // unknown: falls back to fp32
  CHECK_THROWS_AS(ie::peaks_from_json("{\"device\": 1}", "bad"), ie::Error);
  TempCache cache;
  std::string path = ie::peaks_cache_path(p.device);
  CHECK(fs::path(path).parent_path() == cache.dir / "inferengine");
  CHECK(fs::path(path).filename() == "peaks-NVIDIA_H100_80GB_HBM3.json");
}

TEST_CASE("device peaks: the cache file is used, --remeasure replaces it") {
  TempCache cache;
  ie::Options opts;
  opts.backend = "cpu";
  auto backend = ie::make_backend("cpu", opts);
  ie::DevicePeaks fake;
  fake.device = backend->device_name();
  fake.copy_gbps = 123456;
  fake.fp32_tflops = 789;
  std::string path = ie::peaks_cache_path(fake.device);
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << ie::peaks_to_json(fake);
  ie::DevicePeaks cached = ie::device_peaks(*backend);
  CHECK(cached.from_cache);
  CHECK(cached.copy_gbps == 123456);
  ie::DevicePeaks measured = ie::device_peaks(*backend, true);
  CHECK(!measured.from_cache);
  CHECK(measured.copy_gbps > 0);
  CHECK(measured.copy_gbps < 123456);
  CHECK(measured.fp32_tflops > 0);
  CHECK(ie::device_peaks(*backend).copy_gbps == doctest::Approx(measured.copy_gbps));  // now cached
}
