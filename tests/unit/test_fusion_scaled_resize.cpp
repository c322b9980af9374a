// The scaled_resize rule on the CPU backend: an integer image's Cast, its scaling by a constant, a reshape and the
// Resize become one ie.ScaledResize step (the conv net's pre-processing is this chain), which gives the same bits
// as the unfused chain; chains it must not take stay as they are; a bad input_shape is an error naming the node.
// tests/gpu/test_cuda_resize_fused.cpp runs the node on the GPU.
#include <doctest/doctest.h>

#include <random>

#include "engine/core/error.h"
#include "graph_builder.h"

using namespace ie;
using test::GraphBuilder;

namespace {

Tensor random_integers(DType dtype, const Shape& shape, unsigned seed) {
  Tensor t(dtype, shape);
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int v = static_cast<int>(rng() % 65536);
    switch (dtype) {
      case DType::UInt8: t.data_as<uint8_t>()[i] = static_cast<uint8_t>(v); break;
      case DType::Int8: t.data_as<int8_t>()[i] = static_cast<int8_t>(v - 32768); break;
      case DType::UInt16: t.data_as<uint16_t>()[i] = static_cast<uint16_t>(v); break;
      default: t.data_as<int16_t>()[i] = static_cast<int16_t>(v - 32768); break;
    }
  }
  return t;
}

struct Chain {
  DType input = DType::UInt8;
  Shape in;                  // the integer image
  std::string scale_op;      // "Mul", "Div" or "" (none)
  float factor = 1.f / 255;
  std::string view;          // "Unsqueeze", "Reshape" or "" (none)
  Shape out;                 // the Resize's sizes
  std::string mode = "linear";
};

// x (integers) -> Cast(float32) -> [Mul|Div by a scalar] -> [Unsqueeze(1) | Reshape] -> Resize(sizes) -> y
Graph chain_graph(const Chain& c) {
  GraphBuilder b;
  b.input("x", c.in, c.input).output("y");
  Attributes to;
  to.set_int("to", static_cast<int64_t>(DType::Float32));
  b.node("Cast", {"x"}, {"f"}, to, "cast");
  std::string cur = "f";
  if (!c.scale_op.empty()) {
    b.constant("factor", test::scalar_f32(c.factor));
    b.node(c.scale_op, {cur, "factor"}, {"scaled"}, {}, "scale");
    cur = "scaled";
  }
  Shape seen = c.in;
  if (c.view == "Unsqueeze") {
    b.constant("axes", test::i64_tensor({1}, {1}));
    b.node("Unsqueeze", {cur, "axes"}, {"viewed"}, {}, "view");
    seen.insert(seen.begin() + 1, 1);
    cur = "viewed";
  } else if (c.view == "Reshape") {
    seen = c.out;
    const size_t lead = seen.size() - c.in.size();  // the reshape splits the leading dims, keeps the last two
    for (size_t d = seen.size() - 2; d < seen.size(); ++d) seen[d] = c.in[d - lead];
    b.constant("target", test::i64_tensor({static_cast<int64_t>(seen.size())}, seen));
    b.node("Reshape", {cur, "target"}, {"viewed"}, {}, "view");
    cur = "viewed";
  }
  b.constant("sizes", test::i64_tensor({static_cast<int64_t>(c.out.size())}, c.out));
  Attributes a;
  a.set_string("mode", c.mode);
  a.set_string("coordinate_transformation_mode", "half_pixel");
  b.node("Resize", {cur, "", "", "sizes"}, {"y"}, a, "resize");
  return b.build();
}

}  // namespace

TEST_CASE("fusion scaled_resize: the pre-processing chain is one step and gives the unfused chain's bits") {
  const std::vector<Chain> chains = {
      {DType::UInt8, {7, 28, 28}, "Mul", 1.f / 255, "Unsqueeze", {7, 1, 86, 86}},  // the conv net's
      {DType::UInt8, {1, 28, 28}, "Mul", 1.f / 255, "Unsqueeze", {1, 1, 86, 86}},
      {DType::Int8, {3, 2, 9, 13}, "Div", 127.f, "", {3, 2, 20, 7}},
      {DType::UInt16, {2, 5, 11}, "", 1.f, "", {2, 17, 4}},
      {DType::Int16, {4, 6, 10}, "Mul", 0.001f, "Reshape", {2, 2, 13, 21}, "nearest"},
  };
  for (const Chain& c : chains) {
    const std::string what = std::string(dtype_name(c.input)) + " " + shape_to_string(c.in);
    CAPTURE(what);
    const Graph g = chain_graph(c);
    auto plan = test::plan_cpu(g, {{"x", c.in}});
    REQUIRE(test::step_ops(*plan) == std::vector<std::string>{"ie.ScaledResize"});
    const Node& node = plan->steps[0].node;
    CHECK(node.inputs[0] == "x");
    CHECK(node.attrs.get_float("input_factor", 0.f) == c.factor);
    CHECK(node.attrs.get_int("input_divide", 0) == (c.scale_op == "Div" ? 1 : 0));
    CHECK(node.attrs.has("input_shape") == !c.view.empty());
    std::vector<std::string> covers = {"cast", "resize"};
    if (!c.scale_op.empty()) covers.push_back("scale");
    if (!c.view.empty()) covers.push_back("view");
    CHECK(test::sorted(node.covers) == test::sorted(covers));

    const std::map<std::string, Tensor> in = {{"x", random_integers(c.input, c.in, 5)}};
    const std::vector<Tensor> fused = test::run_plan(*plan, in);
    auto unfused_plan = test::plan_cpu(g, {{"x", c.in}}, {"scaled_resize"});
    CHECK(test::step_ops(*unfused_plan).size() > 1);
    const std::vector<Tensor> unfused = test::run_plan(*unfused_plan, in);
    CHECK(test::max_abs_diff(fused[0], unfused[0]) == 0);
    CHECK(test::max_abs_diff(fused[0], test::run_node_by_node(g, in)[0]) == 0);
  }
}

// x of `dtype` [2, 8, 8] -> Cast(float32) -> [Mul by the constant `factor`] -> Resize to [2, 16, 16] -> y; `extra`
// also makes the Mul's output a graph output.
Graph unfusable_graph(DType dtype, const Tensor* factor, bool extra) {
  GraphBuilder b;
  b.input("x", {2, 8, 8}, dtype).output("y");
  if (extra) b.output("s");
  Attributes to;
  to.set_int("to", static_cast<int64_t>(DType::Float32));
  b.node("Cast", {"x"}, {"f"}, to);
  if (factor) {
    b.constant("k", *factor);
    b.node("Mul", {"f", "k"}, {"s"});
  }
  b.constant("sizes", test::i64_tensor({3}, {2, 16, 16}));
  Attributes a;
  a.set_string("mode", "linear");
  b.node("Resize", {factor ? "s" : "f", "", "", "sizes"}, {"y"}, a);
  return b.build();
}

TEST_CASE("fusion scaled_resize: chains it must not take stay unfused") {
  const Tensor scalar = test::scalar_f32(0.5f), per_column = test::f32_tensor({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  struct Case {
    const char* what;
    Graph g;
  };
  const std::vector<Case> cases = {
      {"a float image", unfusable_graph(DType::Float16, nullptr, false)},
      {"a factor per column, not a scalar", unfusable_graph(DType::UInt8, &per_column, false)},
      {"the scaled image also read elsewhere", unfusable_graph(DType::UInt8, &scalar, true)}};
  for (const Case& c : cases) {
    CAPTURE(c.what);
    auto plan = test::plan_cpu(c.g, {{"x", {2, 8, 8}}});
    CHECK(test::steps_of(*plan, "ie.ScaledResize").empty());
    CHECK(test::steps_of(*plan, "Resize").size() == 1);
  }
}

TEST_CASE("ie.ScaledResize: an input_shape that does not hold X's elements is an error naming the node") {
  GraphBuilder b;
  b.input("x", {2, 8, 8}, DType::UInt8).output("y");
  b.constant("sizes", test::i64_tensor({4}, {2, 1, 16, 16}));
  Attributes a;
  a.set_string("mode", "linear");
  a.set_int("to", static_cast<int64_t>(DType::Float32));
  a.set_ints("input_shape", {2, 1, 8, 9});
  Node& n = b.node("ScaledResize", {"x", "", "", "sizes"}, {"y"}, a, "bad_resize");
  n.domain = "ie";
  std::string message;
  try {
    test::plan_cpu(b.build(), {{"x", {2, 8, 8}}});
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message.find("bad_resize") != std::string::npos);
  CHECK(message.find("input_shape [2,1,8,9] does not hold") != std::string::npos);
}
