// Resize on cuda-reference against the CPU backend: the ConvNet's pre-processing ([B,1,28,28] -> [B,1,86,86],
// bilinear, half_pixel, after Cast and Mul), every coordinate transform for linear, nearest modes, cubic,
// downsampling, scales instead of sizes, float16, and a rejected configuration.
#include <string>
#include <vector>

#include "cuda_op_compare.h"

namespace ie::test {
namespace {

constexpr double kF32Atol = 1e-6, kF32Rtol = 1e-5;  // fp32 elementwise (a few multiply-adds per output)
constexpr double kF16Atol = 1e-3, kF16Rtol = 1e-3;

Node resize_node(const std::string& mode, const std::string& transform, const std::string& nearest_mode = "") {
  Attributes a;
  a.set_string("mode", mode);
  a.set_string("coordinate_transformation_mode", transform);
  if (!nearest_mode.empty()) a.set_string("nearest_mode", nearest_mode);
  return make_node("Resize", {"x", "", "", "sizes"}, {"y"}, a);
}

void check_sizes(const std::string& what, const Node& node, DType t, std::vector<int64_t> in, std::vector<int64_t> out,
                 unsigned seed) {
  Tensor x = random_tensor(t, in, seed, 0, 1);
  const bool half = t == DType::Float16;
  expect_matches_cpu(what + " " + dtype_name(t) + " " + shape_to_string(in) + " -> " + shape_to_string(out), node,
                     {x, Tensor(), Tensor(), int64_tensor({static_cast<int64_t>(out.size())}, out)},
                     {false, false, false, true}, 13, half ? kF16Atol : kF32Atol, half ? kF16Rtol : kF32Rtol);
}

TEST_CASE("cuda-reference Resize runs the ConvNet pre-processing like the CPU") {
  IE_REQUIRE_GPU();
  // uint8 images -> Cast -> Mul by 1/255 -> Unsqueeze -> Resize, each op on both backends.
  for (int64_t batch : {1, 37}) {
    Tensor images = random_tensor(DType::UInt8, {batch, 28, 28}, 1 + static_cast<unsigned>(batch), 0, 255);
    Attributes to_float;
    to_float.set_int("to", static_cast<int64_t>(DType::Float32));
    Node cast = make_node("Cast", {"img"}, {"f"}, to_float);
    expect_matches_cpu("pre-processing Cast", cast, {images}, {}, 17, 1e-9, 0);
    Tensor f = run_node_on("cpu", cast, {images}, {}, 17).at(0);
    Node mul = make_node("Mul", {"f", "k"}, {"s"});
    Tensor k = float_tensor({}, {0.00392156862745098f});
    expect_matches_cpu("pre-processing Mul", mul, {f, k}, {false, true}, 17, kF32Atol, kF32Rtol);
    Tensor scaled = run_node_on("cpu", mul, {f, k}, {false, true}, 17).at(0).reshaped({batch, 1, 28, 28});
    expect_matches_cpu("pre-processing Resize bilinear half_pixel batch " + std::to_string(batch),
                       resize_node("linear", "half_pixel"),
                       {scaled, Tensor(), Tensor(), int64_tensor({4}, {batch, 1, 86, 86})}, {false, false, false, true},
                       13, kF32Atol, kF32Rtol);
  }
}

TEST_CASE("cuda-reference Resize linear matches the CPU for every coordinate transform") {
  IE_REQUIRE_GPU();
  unsigned seed = 10;
  for (const char* transform : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
    for (DType t : {DType::Float32, DType::Float16}) {
      check_sizes(std::string("linear ") + transform, resize_node("linear", transform), t, {2, 3, 13, 17},
                  {2, 3, 29, 41}, seed++);
      check_sizes(std::string("linear down ") + transform, resize_node("linear", transform), t, {1, 3, 17, 23},
                  {1, 3, 9, 11}, seed++);
    }
  }
  check_sizes("linear one output column", resize_node("linear", "pytorch_half_pixel"), DType::Float32, {2, 5, 9},
              {2, 7, 1}, seed++);
  check_sizes("linear rank 3, last two dims", resize_node("linear", "half_pixel"), DType::Float32, {4, 10, 12},
              {4, 21, 5}, seed++);
}

TEST_CASE("cuda-reference Resize nearest and cubic match the CPU") {
  IE_REQUIRE_GPU();
  unsigned seed = 50;
  for (const char* nearest : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
    for (const char* transform : {"asymmetric", "half_pixel", "align_corners"}) {
      check_sizes(std::string("nearest ") + nearest + " " + transform, resize_node("nearest", transform, nearest),
                  DType::Float32, {2, 3, 13, 17}, {2, 3, 31, 8}, seed++);
    }
  }
  check_sizes("cubic half_pixel", resize_node("cubic", "half_pixel"), DType::Float32, {1, 2, 11, 14}, {1, 2, 25, 9},
              seed++);
  Attributes exclude;
  exclude.set_string("mode", "cubic");
  exclude.set_int("exclude_outside", 1);
  exclude.set_float("cubic_coeff_a", -0.5f);
  check_sizes("cubic exclude_outside a=-0.5", make_node("Resize", {"x", "", "", "sizes"}, {"y"}, exclude),
              DType::Float32, {1, 2, 11, 14}, {1, 2, 25, 9}, seed++);
}

TEST_CASE("cuda-reference Resize with scales matches the CPU") {
  IE_REQUIRE_GPU();
  Attributes a;
  a.set_string("mode", "linear");
  Node node = make_node("Resize", {"x", "", "scales"}, {"y"}, a);
  Tensor x = random_tensor(DType::Float32, {3, 1, 28, 28}, 70, 0, 1);
  expect_matches_cpu("Resize linear scales [1,1,3.0714,3.0714]", node,
                     {x, Tensor(), float_tensor({4}, {1.f, 1.f, 86.f / 28.f, 86.f / 28.f})}, {false, false, true}, 13,
                     kF32Atol, kF32Rtol);
  expect_matches_cpu("Resize linear scales [1,1,0.5,2]", node, {x, Tensor(), float_tensor({4}, {1.f, 1.f, 0.5f, 2.f})},
                     {false, false, true}, 13, kF32Atol, kF32Rtol);
}

TEST_CASE("cuda-reference Resize rejects resizing a dim other than the last two") {
  IE_REQUIRE_GPU();
  Tensor x = random_tensor(DType::Float32, {2, 3, 4, 5}, 80, 0, 1);
  CHECK_THROWS_AS(
      run_node_on("cuda-reference", resize_node("linear", "half_pixel"),
                  {x, Tensor(), Tensor(), int64_tensor({4}, {2, 6, 4, 5})}, {false, false, false, true}, 13),
      Error);
}

}  // namespace
}  // namespace ie::test
