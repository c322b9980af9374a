// The seams of the fused path on the GPU: bfloat16 on the device (Cast both ways), a fused op against its
// unfused graph on one path, a path pinned to one kernel set, and the tuning cache behind cuDNN's algorithm choice.
#include <filesystem>

#include "cuda_compare.h"
#include "cuda_op_compare.h"
#include "engine/backend/backend.h"
#include "engine/profile/tuning_cache.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

Graph conv_relu_graph(const Tensor& w, const Tensor& b) {
  Graph g;
  g.opset = 17;
  g.source = "conv relu test graph";
  g.constants = {{"w", w}, {"b", b}};
  TensorDecl x{"x", DType::Float32, {-1, w.dim(1), 19, 23}, {"batch", "", "", ""}};
  g.inputs = {x};
  g.nodes = {make_node("Conv", {"x", "w", "b"}, {"c"}), make_node("Relu", {"c"}, {"y"})};
  g.nodes[1].name = "relu_test";
  g.outputs = {inferred_output("y")};
  return g;
}

}  // namespace

TEST_CASE("cuda-reference Cast to and from bfloat16 matches the CPU exactly (truncation, NaN kept)") {
  IE_REQUIRE_GPU();
  for (int64_t n : {1, 7, 4099}) {
    Tensor x = random_tensor(DType::Float32, {n}, 900 + static_cast<unsigned>(n), -50, 50);
    if (n > 1) x.data_as<float>()[1] = std::nanf("");
    Attributes to_bf16, to_f32;
    to_bf16.set_int("to", static_cast<int64_t>(DType::BFloat16));
    to_f32.set_int("to", static_cast<int64_t>(DType::Float32));
    expect_matches_cpu("Cast float32 -> bfloat16, n=" + std::to_string(n), make_node("Cast", {"x"}, {"y"}, to_bf16),
                       {x}, {}, 13, 0, 0);
    Tensor b = random_tensor(DType::BFloat16, {n}, 950 + static_cast<unsigned>(n), -50, 50);
    expect_matches_cpu("Cast bfloat16 -> float32, n=" + std::to_string(n), make_node("Cast", {"x"}, {"y"}, to_f32), {b},
                       {}, 13, 0, 0);
  }
}

TEST_CASE("a fused op against its unfused graph, and a path pinned to one kernel set") {
  IE_REQUIRE_GPU();
  Tensor w = random_uniform({6, 3, 5, 5}, 31, -0.2f, 0.2f);
  Tensor b = random_uniform({6}, 32, -0.5f, 0.5f);
  Graph g = conv_relu_graph(w, b);
  std::map<std::string, Tensor> feeds = {{"x", random_uniform({5, 3, 19, 23}, 33, 0.f, 1.f)}};
  check_fused_matches_unfused("Conv -> Relu as ie.FusedConv", g, feeds, Path{kernel_set::kCudaReference},
                              Tolerance{1e-5, 1e-4});
  Path pinned{kernel_set::kCudaReference, kernel_set::kCudaReference};
  check_outputs_match(run_graph_on(pinned, g, feeds), run_graph_on(Path{kernel_set::kCpu}, g, feeds),
                      Tolerance{1e-5, 1e-4});
}

TEST_CASE("cuDNN's algorithm choice goes through the tuning cache: off, search (stored), cached") {
  IE_REQUIRE_GPU();
  Tensor b = random_uniform({8}, 42, -0.5f, 0.5f);
  Graph g = conv_relu_graph(random_uniform({8, 2, 3, 3}, 41, -0.3f, 0.3f), b);
  std::map<std::string, Tensor> feeds = {{"x", random_uniform({3, 2, 19, 23}, 43, 0.f, 1.f)}};
  std::vector<Tensor> want = run_graph_on(Path{kernel_set::kCpu}, g, feeds);
  for (const char* mode : {"off", "search", "cached"}) {
    INFO("IE_TUNE=", mode);
    ScopedEnv env("IE_TUNE", mode);
    check_outputs_match(run_graph_on(Path{kernel_set::kCudaReference}, g, feeds), want, Tolerance{1e-5, 1e-4});
    if (std::string(mode) == "search") {
      // The process-wide cache of this device saved the winner for this problem (N,C,H,W/K,R,S/...).
      std::string path = tuning_cache_path(make_backend(kernel_set::kCudaReference, Options{})->device_name());
      INFO("tuning cache file ", path);
      REQUIRE(std::filesystem::exists(path));
      const std::string text = read_text(path);
      CHECK(text.find("cudnn_conv_fwd") != std::string::npos);
      CHECK(text.find("3,2,19,23/8,3,3/") != std::string::npos);
    }
  }
}

}  // namespace ie::test
