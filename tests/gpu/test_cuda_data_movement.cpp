// Data movement on cuda-reference against the CPU backend: the view ops, Transpose (tiled and general),
// Concat, Split, Slice (steps, negative steps), Gather (int32/int64 indices, negative ones, constant or not),
// Expand and Tile, with float32, float16 and int64 data.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cuda_op_compare.h"

namespace ie::test {
namespace {

// Data movement copies bits: results must be identical.
constexpr double kExactAtol = 1e-9, kExactRtol = 0;

const std::vector<DType> kTypes = {DType::Float32, DType::Float16, DType::Int64};

Tensor data(DType t, std::vector<int64_t> shape, unsigned seed) {
  return random_tensor(t, std::move(shape), seed, -1000, 1000);
}

void check(const std::string& what, const Node& node, const std::vector<Tensor>& inputs,
           const std::vector<bool>& constant = {}, int64_t opset = 17) {
  expect_matches_cpu(what, node, inputs, constant, opset, kExactAtol, kExactRtol);
}

TEST_CASE("cuda-reference view ops match the CPU") {
  IE_REQUIRE_GPU();
  for (DType t : kTypes) {
    const std::string ty = dtype_name(t);
    Tensor x = data(t, {7, 13, 5}, 1);
    check("Reshape " + ty, make_node("Reshape", {"x", "s"}, {"y"}), {x, int64_tensor({2}, {13, -1})}, {false, true});
    Attributes axis;
    axis.set_int("axis", 2);
    check("Flatten " + ty, make_node("Flatten", {"x"}, {"y"}, axis), {x});
    check("Identity " + ty, make_node("Identity", {"x"}, {"y"}), {x});
    Tensor x1 = data(t, {7, 1, 5, 1}, 2);
    check("Squeeze " + ty, make_node("Squeeze", {"x", "a"}, {"y"}), {x1, int64_tensor({2}, {1, -1})}, {false, true},
          13);
    check("Unsqueeze " + ty, make_node("Unsqueeze", {"x", "a"}, {"y"}), {x, int64_tensor({2}, {0, 4})}, {false, true},
          13);
  }
}

TEST_CASE("cuda-reference Transpose matches the CPU") {
  IE_REQUIRE_GPU();
  struct Case {
    std::vector<int64_t> shape, perm;
  };
  const std::vector<Case> cases = {
      {{7, 13, 5}, {0, 2, 1}},
      {{7, 13, 5}, {2, 1, 0}},
      {{7, 13, 5}, {1, 0, 2}},
      {{33, 65}, {1, 0}},
      {{1, 1000, 1001}, {0, 2, 1}},
      {{2, 3, 4, 5, 6}, {4, 2, 0, 3, 1}},
      {{3, 10, 4, 16}, {0, 2, 1, 3}},
      {{9, 40, 37}, {2, 0, 1}},
      {{2, 3, 2, 3, 2, 3, 2, 3, 2}, {8, 7, 6, 5, 4, 3, 2, 1, 0}},
  };
  unsigned seed = 10;
  for (const Case& c : cases) {
    for (DType t : kTypes) {
      Attributes perm;
      perm.set_ints("perm", c.perm);
      check(std::string("Transpose ") + dtype_name(t) + " " + shape_to_string(c.shape) + " perm " +
                shape_to_string(c.perm),
            make_node("Transpose", {"x"}, {"y"}, perm), {data(t, c.shape, seed++)});
    }
  }
  check("Transpose default perm", make_node("Transpose", {"x"}, {"y"}), {data(DType::Float32, {7, 13, 5}, 99)});
}

TEST_CASE("cuda-reference Concat and Split match the CPU") {
  IE_REQUIRE_GPU();
  unsigned seed = 100;
  for (DType t : kTypes) {
    const std::string ty = dtype_name(t);
    for (int64_t axis : {0, 1, -1}) {
      std::vector<int64_t> a = {2, 3, 5}, b = {2, 3, 5}, c = {2, 3, 5};
      const size_t k = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
      a[k] = 3;
      b[k] = 4;
      c[k] = 1;
      Attributes attrs;
      attrs.set_int("axis", axis);
      check("Concat " + ty + " axis " + std::to_string(axis), make_node("Concat", {"a", "b", "c"}, {"y"}, attrs),
            {data(t, a, seed++), data(t, b, seed++), data(t, c, seed++)});
    }
    Attributes axis1;
    axis1.set_int("axis", 1);
    check("Concat " + ty + " wide rows", make_node("Concat", {"a", "b"}, {"y"}, axis1),
          {data(t, {50, 64}, seed++), data(t, {50, 32}, seed++)});
    check("Split " + ty + " sizes input", make_node("Split", {"x", "s"}, {"p", "q"}, axis1),
          {data(t, {7, 10}, seed++), int64_tensor({2}, {3, 7})}, {false, true}, 13);
    check("Split " + ty + " equal parts", make_node("Split", {"x"}, {"p", "q", "r"}), {data(t, {6, 9}, seed++)}, {},
          13);
  }
}

TEST_CASE("cuda-reference Slice matches the CPU") {
  IE_REQUIRE_GPU();
  struct Case {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  const int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  const std::vector<Case> cases = {
      {{1, -1}, {12, -6}, {1, 2}, {2, -1}},
      {{0, 0, 0}, {7, 13, 5}, {0, 1, 2}, {1, 1, 1}},
      {{-1}, {kMin}, {1}, {-1}},
      {{2}, {kMax}, {0}, {3}},
      {{1, 4}, {5, 100}, {-1, 1}, {1, 4}},
      {{3}, {3}, {0}, {1}},  // empty result
  };
  unsigned seed = 200;
  for (const Case& c : cases) {
    for (DType t : kTypes) {
      const int64_t n = static_cast<int64_t>(c.starts.size());
      check(std::string("Slice ") + dtype_name(t) + " starts " + shape_to_string(c.starts) + " ends " +
                shape_to_string(c.ends) + " axes " + shape_to_string(c.axes) + " steps " + shape_to_string(c.steps),
            make_node("Slice", {"x", "s", "e", "a", "st"}, {"y"}),
            {data(t, {7, 13, 5}, seed++), int64_tensor({n}, c.starts), int64_tensor({n}, c.ends),
             int64_tensor({n}, c.axes), int64_tensor({n}, c.steps)},
            {false, true, true, true, true});
    }
  }
}

TEST_CASE("cuda-reference Gather matches the CPU") {
  IE_REQUIRE_GPU();
  unsigned seed = 300;
  for (DType t : kTypes) {
    const std::string ty = dtype_name(t);
    Tensor x = data(t, {7, 13, 5}, seed++);
    Attributes axis1;
    axis1.set_int("axis", 1);
    Tensor idx = int64_tensor({2, 3}, {0, -1, 5, 12, 3, 3});
    check("Gather " + ty + " axis 1 constant int64 indices", make_node("Gather", {"x", "i"}, {"y"}, axis1), {x, idx},
          {false, true});
    check("Gather " + ty + " axis 1 run-time int64 indices", make_node("Gather", {"x", "i"}, {"y"}, axis1), {x, idx});
    Tensor idx32(DType::Int32, {4});
    for (int i = 0; i < 4; ++i) idx32.data_as<int32_t>()[i] = std::vector<int32_t>{6, -7, 2, 2}[i];
    check("Gather " + ty + " axis 0 int32 indices", make_node("Gather", {"x", "i"}, {"y"}), {x, idx32});
    Attributes last;
    last.set_int("axis", -1);
    check("Gather " + ty + " scalar index on the last axis", make_node("Gather", {"x", "i"}, {"y"}, last),
          {x, int64_tensor({}, {-2})}, {false, true});
    check("Gather " + ty + " rows of 64", make_node("Gather", {"x", "i"}, {"y"}),
          {data(t, {100, 64}, seed++), int64_tensor({5}, {99, 0, -100, 50, 7})});
  }
}

TEST_CASE("cuda-reference Gather rejects out-of-range constant indices at plan time") {
  IE_REQUIRE_GPU();
  CHECK_THROWS_AS(run_node_on("cuda-reference", make_node("Gather", {"x", "i"}, {"y"}),
                              {data(DType::Float32, {4, 3}, 1), int64_tensor({1}, {4})}, {false, true}, 17),
                  Error);
}

TEST_CASE("cuda-reference Expand and Tile match the CPU") {
  IE_REQUIRE_GPU();
  unsigned seed = 400;
  for (DType t : kTypes) {
    const std::string ty = dtype_name(t);
    check("Expand " + ty + " [3,1,5] -> [2,3,4,5]", make_node("Expand", {"x", "s"}, {"y"}),
          {data(t, {3, 1, 5}, seed++), int64_tensor({4}, {2, 3, 4, 5})}, {false, true});
    check("Expand " + ty + " [1] -> [7,13]", make_node("Expand", {"x", "s"}, {"y"}),
          {data(t, {1}, seed++), int64_tensor({2}, {7, 13})}, {false, true});
    check("Tile " + ty + " [3,5] x [2,3]", make_node("Tile", {"x", "r"}, {"y"}),
          {data(t, {3, 5}, seed++), int64_tensor({2}, {2, 3})}, {false, true});
  }
}

}  // namespace
}  // namespace ie::test
