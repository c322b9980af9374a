// Transpose, Concat, Split, Expand, Tile, Pad, Range, Trilu.
#include "tests/ops/tensor_helpers.h"

using namespace ie;
using namespace ie::test;

namespace {

// Naive transpose for checking the tiled and coalesced paths.
std::vector<double> naive_transpose(const std::vector<double>& in, const Shape& shape,
                                    const std::vector<int64_t>& perm) {
  Shape out_shape(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out_shape[i] = shape[perm[i]];
  std::vector<int64_t> in_strides = strides_of(shape);
  std::vector<double> out(in.size());
  for (size_t o = 0; o < out.size(); ++o) {
    int64_t rem = static_cast<int64_t>(o), off = 0;
    for (int k = static_cast<int>(perm.size()) - 1; k >= 0; --k) {
      off += (rem % out_shape[k]) * in_strides[perm[k]];
      rem /= out_shape[k];
    }
    out[o] = in[off];
  }
  return out;
}
}  // namespace

TEST_CASE("Transpose: default reversal, explicit perm, every dtype size") {
  check_tensor(run1(make_node("Transpose", {"x"}, {"y"}), {iota<int64_t>({2, 3})}), DType::Int64, {3, 2},
               {0, 3, 1, 4, 2, 5});
  check_tensor(run1(make_node("Transpose", {"x"}, {"y"}, ints_attr("perm", {1, 0, 2})), {iota<half>({2, 3, 4})}),
               DType::Float16, {3, 2, 4},
               {0, 1, 2, 3, 12, 13, 14, 15, 4, 5, 6, 7, 16, 17, 18, 19, 8, 9, 10, 11, 20, 21, 22, 23});
  check_tensor(run1(make_node("Transpose", {"x"}, {"y"}), {tensor<uint8_t>({1, 3}, std::vector<int>{7, 8, 9})}),
               DType::UInt8, {3, 1}, {7, 8, 9});
}

TEST_CASE("Transpose matches a naive loop on odd shapes (tiled last-two swap and general N-d)") {
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
  };
  for (const Case& c : {Case{{37, 41}, {1, 0}}, Case{{3, 37, 41}, {0, 2, 1}}, Case{{5, 9, 33, 17}, {2, 0, 3, 1}},
                        Case{{2, 3, 5, 7, 11}, {4, 2, 0, 3, 1}}, Case{{1, 70, 1, 65}, {3, 2, 1, 0}}}) {
    Tensor x = iota<float>(c.shape);
    Tensor y = run1(make_node("Transpose", {"x"}, {"y"}, ints_attr("perm", c.perm)), {x});
    INFO("shape ", shape_to_string(c.shape), " perm ", shape_to_string(c.perm));
    CHECK(values(y) == naive_transpose(values(x), c.shape, c.perm));
    Tensor xi = iota<int64_t>(c.shape);
    CHECK(values(run1(make_node("Transpose", {"x"}, {"y"}, ints_attr("perm", c.perm)), {xi})) == values(y));
  }
}

TEST_CASE("Transpose rejects a bad perm") {
  Tensor x(DType::Float32, {2, 3, 4});
  for (auto perm : {std::vector<int64_t>{0, 1}, {0, 0, 1}, {0, 1, 3}}) {
    CHECK_THROWS_WITH_AS(run1(make_node("Transpose", {"x"}, {"y"}, ints_attr("perm", perm)), {x}),
                         doctest::Contains("not a permutation"), Error);
  }
}

TEST_CASE("Concat along positive and negative axes, with empty inputs") {
  Tensor a = iota<int64_t>({2, 1, 3}), b = i64({2, 2, 3}, {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21});
  Tensor e(DType::Int64, {2, 0, 3});
  check_tensor(run1(make_node("Concat", {"a", "e", "b"}, {"y"}, int_attr("axis", -2)), {a, e, b}), DType::Int64,
               {2, 3, 3}, {0, 1, 2, 10, 11, 12, 13, 14, 15, 3, 4, 5, 16, 17, 18, 19, 20, 21});
  check_tensor(run1(make_node("Concat", {"a", "b"}, {"y"}, int_attr("axis", 0)), {f16({2}, {1, 2}), f16({1}, {3})}),
               DType::Float16, {3}, {1, 2, 3});
}

TEST_CASE("Concat rejects mismatched inputs") {
  auto node = make_node("Concat", {"a", "b"}, {"y"}, int_attr("axis", 1));
  CHECK_THROWS_WITH_AS(run1(node, {Tensor(DType::Float32, {2, 3}), Tensor(DType::Float32, {3, 3})}),
                       doctest::Contains("does not match"), Error);
  CHECK_THROWS_AS(run1(node, {Tensor(DType::Float32, {2, 3}), Tensor(DType::Float32, {2, 3, 1})}), Error);
  CHECK_THROWS_AS(run1(node, {Tensor(DType::Float32, {2, 3}), Tensor(DType::Int64, {2, 3})}), Error);
  CHECK_THROWS_AS(run1(make_node("Concat", {"a"}, {"y"}, int_attr("axis", 2)), {Tensor(DType::Float32, {2, 3})}),
                  Error);
}

TEST_CASE("Split: equal parts, split attribute (<13), split input (>=13), uneven num_outputs (18)") {
  Tensor x = iota<int64_t>({2, 7});
  auto outs =
      run_node_cpu(make_node("Split", {"x", "s"}, {"a", "b", "c"}, int_attr("axis", -1)), {x, i64({3}, {3, 2, 2})}, 13);
  check_tensor(outs[0], DType::Int64, {2, 3}, {0, 1, 2, 7, 8, 9});
  check_tensor(outs[1], DType::Int64, {2, 2}, {3, 4, 10, 11});
  check_tensor(outs[2], DType::Int64, {2, 2}, {5, 6, 12, 13});
  Attributes a = ints_attr("split", {1, 1});
  outs = run_node_cpu(make_node("Split", {"x"}, {"a", "b"}, a), {x}, 11);
  check_tensor(outs[1], DType::Int64, {1, 7}, {7, 8, 9, 10, 11, 12, 13});
  Attributes n;
  n.set_int("axis", 1);
  n.set_int("num_outputs", 3);
  outs = run_node_cpu(make_node("Split", {"x"}, {"a", "b", "c"}, n), {x}, 18);
  check_tensor(outs[2], DType::Int64, {2, 1}, {6, 13});
  outs = run_node_cpu(make_node("Split", {"x"}, {"a", "b"}), {f16({4}, {1, 2, 3, 4})}, 13);
  check_tensor(outs[1], DType::Float16, {2}, {3, 4});
  CHECK_THROWS_AS(run_node_cpu(make_node("Split", {"x"}, {"a", "b", "c"}, int_attr("axis", 1)), {x}, 13), Error);
  CHECK_THROWS_AS(
      run_node_cpu(make_node("Split", {"x", "s"}, {"a", "b"}, int_attr("axis", 1)), {x, i64({2}, {3, 3})}, 13), Error);
}

TEST_CASE("Expand broadcasts both ways") {
  check_tensor(run1(make_node("Expand", {"x", "s"}, {"y"}), {i64({3, 1}, {1, 2, 3}), i64({3}, {2, 1, 2})}),
               DType::Int64, {2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
  // The target may be smaller than the input (dims of 1 broadcast to the input's).
  check_tensor(run1(make_node("Expand", {"x", "s"}, {"y"}), {f16({2, 1}, {4, 5}), i64({1}, {1})}), DType::Float16,
               {2, 1}, {4, 5});
  CHECK_THROWS_AS(run1(make_node("Expand", {"x", "s"}, {"y"}), {i64({3}, {1, 2, 3}), i64({1}, {2})}), Error);
}

TEST_CASE("Tile repeats each dim") {
  check_tensor(run1(make_node("Tile", {"x", "r"}, {"y"}), {iota<int64_t>({2, 3}), i64({2}, {2, 1})}), DType::Int64,
               {4, 3}, {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5});
  check_tensor(run1(make_node("Tile", {"x", "r"}, {"y"}), {f16({1, 2}, {1, 2}), i64({2}, {2, 2})}), DType::Float16,
               {2, 4}, {1, 2, 1, 2, 1, 2, 1, 2});
  CHECK_THROWS_AS(run1(make_node("Tile", {"x", "r"}, {"y"}), {iota<int64_t>({2, 3}), i64({1}, {2})}), Error);
}

TEST_CASE("Pad: constant, reflect, edge, wrap, negative pads, the opset-2 attributes") {
  Tensor x = iota<int64_t>({3, 4});
  auto pad = [&](const char* mode, std::vector<int64_t> pads, int64_t opset = 13) {
    Attributes a;
    a.set_string("mode", mode);
    if (opset < 11) {
      a.set_ints("pads", pads);
      a.set_float("value", 9);
      return run1(make_node("Pad", {"x"}, {"y"}, a), {x}, opset);
    }
    return run1(make_node("Pad", {"x", "p"}, {"y"}, a), {x, i64({4}, pads)}, opset);
  };
  check_tensor(
      pad("reflect", {1, 2, 0, 3}), DType::Int64, {4, 9},
      {6, 5, 4, 5, 6, 7, 6, 5, 4, 2, 1, 0, 1, 2, 3, 2, 1, 0, 6, 5, 4, 5, 6, 7, 6, 5, 4, 10, 9, 8, 9, 10, 11, 10, 9, 8});
  check_tensor(pad("edge", {1, 2, 0, 3}), DType::Int64, {4, 9},
               {0, 0, 0, 1, 2, 3, 3, 3, 3, 0, 0, 0, 1, 2,  3,  3,  3,  3,
                4, 4, 4, 5, 6, 7, 7, 7, 7, 8, 8, 8, 9, 10, 11, 11, 11, 11});
  check_tensor(pad("constant", {0, -1, 1, 1}), DType::Int64, {4, 4},
               {1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 0, 0, 0, 0});
  check_tensor(pad("wrap", {0, 1, 0, 0}, 19), DType::Int64, {3, 5}, {3, 0, 1, 2, 3, 7, 4, 5, 6, 7, 11, 8, 9, 10, 11});
  check_tensor(pad("constant", {1, 0, 0, 0}, 2), DType::Int64, {4, 4},
               {9, 9, 9, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  // The constant value input, on float16.
  Attributes a;
  Tensor y = run1(make_node("Pad", {"x", "p", "v"}, {"y"}, a), {f16({2}, {1, 2}), i64({2}, {1, 1}), f16({}, {-0.5f})});
  check_tensor(y, DType::Float16, {4}, {-0.5, 1, 2, -0.5});
  // Reflection past the whole dim keeps bouncing (as numpy does).
  check_tensor(run1(make_node("Pad", {"x", "p"}, {"y"},
                              [] {
                                Attributes r;
                                r.set_string("mode", "reflect");
                                return r;
                              }()),
                    {iota<int64_t>({3}), i64({2}, {5, 4})}),
               DType::Int64, {12}, {1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2});
  CHECK_THROWS_AS(pad("constant", {0, -5, 0, 0}), Error);
  CHECK_THROWS_AS(pad("mirror", {0, 1, 0, 0}), Error);
  CHECK_THROWS_AS(run1(make_node("Pad", {"x", "p"}, {"y"}), {x, i64({2}, {1, 1})}), Error);
}

TEST_CASE("Range counts like numpy.arange") {
  check_tensor(run1(make_node("Range", {"a", "b", "c"}, {"y"}), {i64({}, {10}), i64({}, {1}), i64({}, {-3})}),
               DType::Int64, {3}, {10, 7, 4});
  check_tensor(run1(make_node("Range", {"a", "b", "c"}, {"y"}), {f32({}, {1}), f32({}, {2}), f32({}, {0.25f})}),
               DType::Float32, {4}, {1, 1.25, 1.5, 1.75});
  check_tensor(run1(make_node("Range", {"a", "b", "c"}, {"y"}), {i32({}, {5}), i32({}, {1}), i32({}, {2})}),
               DType::Int32, {0}, {});
  CHECK_THROWS_AS(run1(make_node("Range", {"a", "b", "c"}, {"y"}), {i64({}, {0}), i64({}, {1}), i64({}, {0})}), Error);
}

TEST_CASE("Trilu keeps the upper or lower triangle of the last two dims") {
  Tensor x = iota<int64_t>({3, 4});
  check_tensor(run1(make_node("Trilu", {"x", "k"}, {"y"}), {x, i64({}, {1})}), DType::Int64, {3, 4},
               {0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11});
  check_tensor(run1(make_node("Trilu", {"x", "k"}, {"y"}, int_attr("upper", 0)), {x, i64({}, {-1})}), DType::Int64,
               {3, 4}, {0, 0, 0, 0, 4, 0, 0, 0, 8, 9, 0, 0});
  check_tensor(run1(make_node("Trilu", {"x"}, {"y"}, int_attr("upper", 0)), {f16({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}),
               DType::Float16, {2, 2, 2}, {1, 0, 3, 4, 5, 0, 7, 8});
  CHECK_THROWS_AS(run1(make_node("Trilu", {"x"}, {"y"}), {i64({3}, {1, 2, 3})}), Error);
}
