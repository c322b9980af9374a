// The fused set's Resize (plane kernel) against the CPU backend in every precision mode: the ConvNet's
// pre-processing at batch 1, 7 and 10001, every mode and coordinate transform on odd sizes, downsampling, rank 3,
// crop-and-resize with extrapolation; checking that the fused set served the step, and that planes beyond its
// shared memory decline to the reference kernel. Then ie.ScaledResize (an integer image's Cast, scaling, reshape
// and Resize as one step) against the unfused chain on the CPU, in every mode and for every integer input type.
#include "cuda_compare.h"
#include "cuda_op_compare.h"
#include "engine/backend/backend.h"

namespace ie::test {
namespace {

struct ResizeCase {
  std::string mode, transform;
  Shape in, out;
  std::vector<float> roi;  // tf_crop_and_resize only
};

Graph resize_graph(const ResizeCase& c) {
  Graph g;
  g.opset = 13;
  g.source = "resize test graph";
  Attributes a;
  a.set_string("mode", c.mode);
  a.set_string("coordinate_transformation_mode", c.transform);
  if (!c.roi.empty()) a.set_float("extrapolation_value", -0.5f);
  Node n = make_node("Resize", {"x", c.roi.empty() ? "" : "roi", "", "sizes"}, {"y"}, a);
  n.name = "resize";
  g.nodes = {n};
  g.constants = {{"sizes", int64_tensor({static_cast<int64_t>(c.out.size())}, c.out)}};
  if (!c.roi.empty()) g.constants["roi"] = float_tensor({static_cast<int64_t>(c.roi.size())}, c.roi);
  std::vector<std::string> names(c.in.size(), "");
  g.inputs = {TensorDecl{"x", DType::Float32, c.in, names}};
  g.outputs = {inferred_output("y")};
  return g;
}

// x (integers) -> Cast(float32) -> Mul|Div by `factor` -> Unsqueeze(1) -> Resize(linear, sizes `out`) -> y, the
// shape of a model config's pre-processing.
Graph scaled_chain_graph(DType input, const Shape& in, const std::string& scale_op, float factor, const Shape& out) {
  Graph g;
  g.opset = 17;
  g.source = "scaled resize test graph";
  Attributes to;
  to.set_int("to", static_cast<int64_t>(DType::Float32));
  Attributes a;
  a.set_string("mode", "linear");
  a.set_string("coordinate_transformation_mode", "half_pixel");
  g.nodes = {make_node("Cast", {"x"}, {"f"}, to), make_node(scale_op, {"f", "factor"}, {"s"}),
             make_node("Unsqueeze", {"s", "axes"}, {"u"}), make_node("Resize", {"u", "", "", "sizes"}, {"y"}, a)};
  Tensor factor_t(DType::Float32, {});
  *factor_t.data_as<float>() = factor;
  g.constants = {{"factor", factor_t},
                 {"axes", int64_tensor({1}, {1})},
                 {"sizes", int64_tensor({static_cast<int64_t>(out.size())}, out)}};
  std::vector<std::string> names(in.size(), "");
  g.inputs = {TensorDecl{"x", input, in, names}};
  g.outputs = {inferred_output("y")};
  return g;
}

Tensor random_bytes(DType dtype, const Shape& shape, unsigned seed) {
  Tensor t(dtype, shape);
  uint32_t h = seed * 2654435761u + 1;
  auto* bytes = static_cast<uint8_t*>(t.data());
  for (size_t i = 0; i < t.nbytes(); ++i) {
    h ^= h << 13, h ^= h >> 17, h ^= h << 5;
    bytes[i] = static_cast<uint8_t>(h >> 24);
  }
  return t;
}

std::string label(const ResizeCase& c) {
  return c.mode + " " + c.transform + " " + shape_to_string(c.in) + " -> " + shape_to_string(c.out);
}

}  // namespace

TEST_CASE("cuda Resize (fused set) matches the CPU in every precision") {
  IE_REQUIRE_GPU();
  const std::vector<ResizeCase> cases = {
      {"linear", "half_pixel", {1, 1, 28, 28}, {1, 1, 86, 86}, {}},
      {"linear", "half_pixel", {7, 1, 28, 28}, {7, 1, 86, 86}, {}},
      {"linear", "half_pixel", {10001, 1, 28, 28}, {10001, 1, 86, 86}, {}},
      {"linear", "align_corners", {2, 3, 13, 17}, {2, 3, 29, 41}, {}},
      {"linear", "asymmetric", {1, 3, 17, 23}, {1, 3, 9, 11}, {}},
      {"linear", "pytorch_half_pixel", {2, 5, 9}, {2, 7, 1}, {}},
      {"nearest", "asymmetric", {2, 3, 13, 17}, {2, 3, 31, 8}, {}},
      {"nearest", "half_pixel", {3, 1, 5, 4}, {3, 1, 33, 65}, {}},
      {"linear", "half_pixel", {1, 2, 6, 50}, {1, 2, 7, 200}, {}},  // wider than a warp's register columns
      {"cubic", "half_pixel", {1, 2, 11, 14}, {1, 2, 25, 9}, {}},
      {"linear", "tf_crop_and_resize", {2, 2, 10, 12}, {2, 2, 15, 7}, {0, 0, -0.2f, 0.1f, 1, 1, 1.3f, 0.9f}},
  };
  for (Precision p : all_precisions())
    for (const ResizeCase& c : cases) {
      const std::string what = label(c);
      INFO(what, " in ", precision_name(p));
      const Graph g = resize_graph(c);
      const Tensor x = random_uniform(c.in, seed_of(what, 1), 0.f, 1.f);
      CHECK(kernel_set_serving(g, {{"x", c.in}}, p, "Resize") == kernel_set::kCuda);
      check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", x}}),
                          run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), fused_tolerance(p));
    }
}

TEST_CASE("cuda Resize (fused set) declines planes beyond its shared memory; the reference kernel runs them") {
  IE_REQUIRE_GPU();
  const ResizeCase big{"linear", "half_pixel", {1, 1, 120, 130}, {1, 1, 61, 67}, {}};
  const Graph g = resize_graph(big);
  CHECK(kernel_set_serving(g, {{"x", big.in}}, Precision::fp32, "Resize") == kernel_set::kCudaReference);
  const Tensor x = random_uniform(big.in, 3, 0.f, 1.f);
  check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::fp32}, g, {{"x", x}}),
                      run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), fused_tolerance(Precision::fp32));
}

TEST_CASE("cuda ie.ScaledResize (fused set) matches the unfused chain on the CPU in every precision") {
  IE_REQUIRE_GPU();
  struct Case {
    DType input;
    Shape in, out;
    std::string scale_op;
    float factor;
  };
  const std::vector<Case> cases = {
      {DType::UInt8, {1, 28, 28}, {1, 1, 86, 86}, "Mul", 1.f / 255},  // the conv net's pre-processing
      {DType::UInt8, {7, 28, 28}, {7, 1, 86, 86}, "Mul", 1.f / 255},
      {DType::UInt8, {10001, 28, 28}, {10001, 1, 86, 86}, "Div", 255.f},
      {DType::Int8, {3, 13, 17}, {3, 1, 29, 9}, "Div", 127.f},
      {DType::UInt16, {2, 9, 40}, {2, 1, 5, 300}, "Mul", 1.f / 65535},  // wider than the register columns
      {DType::Int16, {5, 6, 4}, {5, 1, 33, 65}, "Mul", 1e-4f},
  };
  for (Precision p : all_precisions())
    for (const Case& c : cases) {
      const std::string what = std::string(dtype_name(c.input)) + " " + shape_to_string(c.in) + " " + c.scale_op;
      INFO(what, " in ", precision_name(p));
      const Graph g = scaled_chain_graph(c.input, c.in, c.scale_op, c.factor, c.out);
      const Tensor x = random_bytes(c.input, c.in, seed_of(what, 2));
      CHECK(kernel_set_serving(g, {{"x", c.in}}, p, "ScaledResize") == kernel_set::kCuda);
      Path unfused_cpu{kernel_set::kCpu};
      unfused_cpu.fuse = false;
      check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", x}}),
                          run_graph_on(unfused_cpu, g, {{"x", x}}), fused_tolerance(p));
    }
}

TEST_CASE("cuda ie.ScaledResize declines planes beyond its shared memory; its parts run unfused") {
  IE_REQUIRE_GPU();
  const Shape in = {2, 120, 130};
  const Graph g = scaled_chain_graph(DType::UInt8, in, "Mul", 1.f / 255, {2, 1, 61, 67});
  CHECK(kernel_set_serving(g, {{"x", in}}, Precision::fp32, "Resize") == kernel_set::kCudaReference);
  const Tensor x = random_bytes(DType::UInt8, in, 9);
  Path unfused_cpu{kernel_set::kCpu};
  unfused_cpu.fuse = false;
  check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::fp32}, g, {{"x", x}}),
                      run_graph_on(unfused_cpu, g, {{"x", x}}), fused_tolerance(Precision::fp32));
}

}  // namespace ie::test
