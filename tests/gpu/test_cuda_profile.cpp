// The CUDA backends' step timer (events + NVTX), device facts, device peaks, and Session::profile / run_staged on
// a model when this build's cuda-reference kernels cover it.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "engine/backend/backend.h"
#include "engine/profile/device_peaks.h"
#include "tests/gpu/gpu_test_util.h"

namespace fs = std::filesystem;

namespace {

constexpr size_t kCopyBytes = size_t(64) << 20;

std::shared_ptr<ie::Backend> gpu_backend() {
  ie::Options o;
  o.backend = "cuda-reference";
  return ie::make_backend("cuda-reference", o);
}

}  // namespace

TEST_CASE("cuda step timer: one positive time per step, reusable across runs") {
  IE_REQUIRE_GPU();
  auto backend = gpu_backend();
  void* a = backend->allocate(kCopyBytes);
  void* b = backend->allocate(kCopyBytes);
  std::vector<char> host(kCopyBytes, 3);
  auto timer = backend->make_step_timer();
  for (int run = 0; run < 2; ++run) {
    timer->start(0, "copy in");
    backend->copy_in(a, host.data(), kCopyBytes);
    timer->stop(0);
    timer->start(1, "device copy");
    backend->copy_device(b, a, kCopyBytes);
    timer->stop(1);
    std::vector<double> ms = timer->elapsed_ms();
    CAPTURE(run);
    REQUIRE(ms.size() == 2);
    CHECK(ms[0] > 0);
    CHECK(ms[1] > 0);
  }
  std::vector<char> back(kCopyBytes, 0);
  backend->copy_out(back.data(), b, kCopyBytes);
  CHECK(std::memcmp(back.data(), host.data(), kCopyBytes) == 0);
  backend->deallocate(a);
  backend->deallocate(b);
  CHECK(backend->make_step_annotator() != nullptr);
}

TEST_CASE("cuda device facts name the GPU and the library versions") {
  IE_REQUIRE_GPU();
  auto backend = gpu_backend();
  CHECK(!backend->device_name().empty());
  std::map<std::string, std::string> facts;
  for (auto& [k, v] : backend->device_info()) facts[k] = v;
  CHECK(facts["gpu"] == backend->device_name());
  CHECK(std::stoi(facts["SMs"]) > 0);
  for (const char* key : {"driver (CUDA)", "CUDA runtime", "cuDNN", "cuBLAS", "SM clock (MHz)"}) {
    CAPTURE(key);
    CHECK(!facts[key].empty());
  }
}

TEST_CASE("cuda device peaks: measured, ordered as the hardware is, then cached") {
  IE_REQUIRE_GPU();
  fs::path dir = fs::temp_directory_path() / ("ie-gpu-peaks-" + std::to_string(std::random_device{}()));
  const char* old = std::getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  auto backend = gpu_backend();
  ie::DevicePeaks p = ie::device_peaks(*backend, true);
  MESSAGE("copy ", p.copy_gbps, " GB/s; fp32 ", p.fp32_tflops, ", tf32 ", p.tf32_tflops, ", fp16 ", p.fp16_tflops,
          " TFLOP/s (", p.method, ")");
  // Only sanity: timing thresholds have no place in tests (they fail under compute-sanitizer, for one).
  CHECK(!p.from_cache);
  CHECK(p.copy_gbps > 0);
  CHECK(p.fp32_tflops > 0);
  CHECK(p.tf32_tflops > 0);
  CHECK(p.fp16_tflops > 0);
  ie::DevicePeaks again = ie::device_peaks(*backend);
  CHECK(again.from_cache);
  CHECK(again.fp32_tflops == doctest::Approx(p.fp32_tflops));
  if (old)
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else
    unsetenv("XDG_CACHE_HOME");
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST_CASE("cuda profile and phase timing of a model (when the kernels cover it)") {
  IE_REQUIRE_GPU();
  for (const char* model : {"weights/ssa.onnx", "weights/convnet.onnx"}) {
    CAPTURE(model);
    ie::Options o;
    o.backend = "cuda-reference";
    ie::Engine engine = ie::Engine::load(std::string(IE_SOURCE_DIR) + "/" + model, o);
    ie::Session session = engine.create_session();
    std::vector<int64_t> shape = engine.inputs().at(0).dims;
    shape[0] = 3;
    std::map<std::string, ie::Tensor> inputs{{engine.inputs().at(0).name, ie::test::random_uniform(shape, 11, 0, 1)}};
    size_t events = 0;
    session.set_observer([&](const ie::StepEvent&) { ++events; });
    try {
      session.run_ordered(inputs);
    } catch (const ie::Error& e) {
      if (std::string(e.what()).find("cuda-reference kernel") == std::string::npos) throw;
      MESSAGE("skipped ", model, ": ", e.what());
      continue;
    }
    session.set_observer(nullptr);
    ie::ProfileReport r = session.profile(inputs, 2, 5);
    CHECK(r.backend == "cuda-reference");
    REQUIRE(r.steps.size() == events);
    for (auto& s : r.steps) {
      CAPTURE(s.name);
      CHECK(s.median_ms > 0);
      CHECK(s.min_ms <= s.max_ms);
    }
    ie::RunTiming t;
    session.run_timed(inputs, &t);
    CHECK(t.load_ms > 0);
    CHECK(t.compute_ms > 0);
    CHECK(t.fetch_ms > 0);
    size_t set = session.stage_inputs(inputs);
    ie::RunTiming s = session.run_staged(set);
    CHECK(s.compute_ms > 0);
    CHECK(s.fetch_ms == 0);
    session.clear_staged();
  }
}
