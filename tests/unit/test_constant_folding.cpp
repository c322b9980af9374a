// Constant folding at plan time: the legacy exporter's shape chains become a static Reshape once the batch is
// bound, initializer arithmetic folds, dead nodes go, Constant nodes in every value form load and fold, and the
// folded plan computes what the unfolded graph computes.
#include <doctest/doctest.h>

#include <algorithm>

#include "engine/loader/onnx_loader.h"
#include "graph_builder.h"
#include "model_builder.h"

using namespace ie;
using test::ModelBuilder;

namespace {

bool has_step(const Plan& plan, const std::string& op) { return !test::steps_of(plan, op).empty(); }

// y = x.view(x.size(0), -1) as the legacy exporter writes it: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
std::string legacy_view_model(int64_t opset) {
  ModelBuilder b(opset);
  b.input("x", {-1, 4, 6}).output("y");
  b.initializer_i64("zero", {}, {0});
  b.initializer_i64("minus_one", {1}, {-1});
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "zero"}, {"n"});
  if (opset >= 13) {
    b.initializer_i64("axes0", {1}, {0});
    b.node("Unsqueeze", {"n", "axes0"}, {"n1"});
  } else {
    test::add_ints_attr(b.node("Unsqueeze", {"n"}, {"n1"}), "axes", {0});
  }
  test::add_int_attr(b.node("Concat", {"n1", "minus_one"}, {"shape"}), "axis", 0);
  b.node("Reshape", {"x", "shape"}, {"y"});
  return b.write(test::temp_dir("legacy_view_" + std::to_string(opset)));
}

// y = x.reshape(x.shape[:1] + (int(x.shape[1] * x.shape[2]),)): Shape -> Slice, and Gather -> Mul -> Cast chains.
std::string slice_cast_model() {
  ModelBuilder b(13);
  b.input("x", {-1, 4, 6}).output("y");
  b.initializer_i64("start", {1}, {0});
  b.initializer_i64("end", {1}, {1});
  b.initializer_i64("one", {}, {1});
  b.initializer_i64("two", {}, {2});
  b.initializer_i64("axes0", {1}, {0});
  b.node("Shape", {"x"}, {"s"});
  b.node("Slice", {"s", "start", "end"}, {"batch"});
  b.node("Gather", {"s", "one"}, {"d1"});
  b.node("Gather", {"s", "two"}, {"d2"});
  b.node("Mul", {"d1", "d2"}, {"prod"});
  test::add_int_attr(b.node("Cast", {"prod"}, {"prod_f"}), "to", onnx::TensorProto::FLOAT);
  test::add_int_attr(b.node("Cast", {"prod_f"}, {"prod_i"}), "to", onnx::TensorProto::INT64);
  b.node("Unsqueeze", {"prod_i", "axes0"}, {"prod_1"});
  test::add_int_attr(b.node("Concat", {"batch", "prod_1"}, {"shape"}), "axis", 0);
  b.node("Reshape", {"x", "shape"}, {"y"});
  return b.write(test::temp_dir("slice_cast"));
}

// The folded plan has a single static Reshape (a view of x, so no step), computes the unfolded graph's result, and
// refolds per batch.
void check_static_reshape(const std::string& path, size_t min_folded) {
  Graph g = load_onnx(path);
  for (int64_t batch : {1, 3, 5}) {
    CAPTURE(batch);
    auto plan = test::plan_cpu(g, {{"x", {batch, 4, 6}}});
    CHECK(test::step_ops(*plan).empty());  // the Reshape of the input aliases it: a view without a step
    REQUIRE(plan->views.size() == 1);
    for (const char* op : {"Shape", "Gather", "Unsqueeze", "Concat", "Slice", "Cast", "Mul"})
      CHECK_MESSAGE(!has_step(*plan, op), op, " survived folding");
    CHECK(plan->folded_nodes >= min_folded);
    const ElidedView& reshape = plan->views[0];
    CHECK(reshape.node.op_type == "Reshape");
    CHECK(plan->graph.constants.count(reshape.node.inputs[1]));
    CHECK(plan->slots[reshape.output].info.shape == Shape{batch, 24});

    Tensor x = test::random_tensor({batch, 4, 6}, 7);
    auto folded = test::run_plan(*plan, {{"x", x}});
    auto reference = test::run_node_by_node(g, {{"x", x}});
    REQUIRE(folded[0].shape() == Shape{batch, 24});
    CHECK(test::max_abs_diff(folded[0], reference[0]) == 0);
  }
}

}  // namespace

TEST_CASE("constant folding: Shape -> Gather -> Unsqueeze -> Concat -> Reshape becomes a static Reshape") {
  for (int64_t opset : {11, 13, 17}) {
    CAPTURE(opset);
    check_static_reshape(legacy_view_model(opset), 4);
  }
}

TEST_CASE("constant folding: Shape -> Slice -> Concat and Cast of shapes fold too") {
  check_static_reshape(slice_cast_model(), 8);
}

TEST_CASE("constant folding: the public API runs the folded chain at several batch sizes") {
  Engine engine = Engine::load(legacy_view_model(13), Options{"cpu"});
  Session session = engine.create_session();
  for (int64_t batch : {2, 9, 2}) {
    Tensor x = test::random_tensor({batch, 4, 6}, static_cast<unsigned>(batch));
    Tensor y = session.run({{"x", x}}).at("y");
    REQUIRE(y.shape() == Shape{batch, 24});
    CHECK(std::equal(x.data_as<float>(), x.data_as<float>() + x.numel(), y.data_as<float>()));
  }
  std::string text = engine.describe({{"x", {4, 4, 6}}});
  CHECK(text.find("4 folded at plan time") != std::string::npos);
}

TEST_CASE("constant folding: initializer arithmetic folds (Transpose of a weight, Add of two constants)") {
  test::GraphBuilder b;
  b.input("x", {-1, 3});
  b.constant("w", test::random_tensor({4, 3}, 1));
  b.constant("b1", test::random_tensor({4}, 2));
  b.constant("b2", test::random_tensor({4}, 3));
  b.node("Transpose", {"w"}, {"wt"});
  b.node("Add", {"b1", "b2"}, {"bias"});
  b.node("MatMul", {"x", "wt"}, {"xw"});
  b.node("Add", {"xw", "bias"}, {"y"});
  Graph g = b.output("y").build();

  auto plan = test::plan_cpu(g, {{"x", {5, 3}}}, {"all"});
  CHECK(plan->folded_nodes == 2);
  CHECK(test::step_ops(*plan) == std::vector<std::string>{"MatMul", "Add"});
  REQUIRE(plan->graph.constants.count("wt"));
  CHECK(plan->graph.constants.at("wt").shape() == Shape{3, 4});
  const Tensor& w = g.constants.at("w");
  const Tensor& wt = plan->graph.constants.at("wt");
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) CHECK(wt.data_as<float>()[j * 4 + i] == w.data_as<float>()[i * 3 + j]);
  REQUIRE(plan->graph.constants.count("bias"));
  CHECK(plan->graph.constants.at("bias").data_as<float>()[1] ==
        doctest::Approx(g.constants.at("b1").data_as<float>()[1] + g.constants.at("b2").data_as<float>()[1]));

  Tensor x = test::random_tensor({5, 3}, 9);
  auto reference = test::run_node_by_node(g, {{"x", x}});
  CHECK(test::max_abs_diff(test::run_plan(*plan, {{"x", x}})[0], reference[0]) < 1e-6);
  // With fusion the folded weight and bias feed one Linear step.
  auto fused = test::plan_cpu(g, {{"x", {5, 3}}});
  CHECK(test::step_ops(*fused) == std::vector<std::string>{"ie.Linear"});
  CHECK(test::max_abs_diff(test::run_plan(*fused, {{"x", x}})[0], reference[0]) < 1e-5);
}

TEST_CASE("constant folding: dead nodes and dead constants are removed") {
  test::GraphBuilder b;
  b.input("x", {-1, 3});
  b.constant("c1", test::random_tensor({3}, 1)).constant("c2", test::random_tensor({3}, 2));
  b.node("Relu", {"x"}, {"unused"});
  b.node("Add", {"unused", "c1"}, {"unused2"});
  b.node("Mul", {"c1", "c2"}, {"dead_constant"});
  b.node("Sigmoid", {"x"}, {"y"});
  Graph g = b.output("y").build();
  auto plan = test::plan_cpu(g, {{"x", {2, 3}}});
  CHECK(test::step_ops(*plan) == std::vector<std::string>{"Sigmoid"});
  CHECK(plan->removed_nodes == 2);
  CHECK(plan->folded_nodes == 1);
  CHECK(plan->graph.constants.count("dead_constant") == 0);
  CHECK(plan->graph.constants.count("c1") == 0);
  CHECK(plan->slot_of.count("unused") == 0);
  Tensor x = test::random_tensor({2, 3}, 4);
  CHECK(test::max_abs_diff(test::run_plan(*plan, {{"x", x}})[0], test::run_node_by_node(g, {{"x", x}})[0]) == 0);
}

TEST_CASE("constant folding: Constant nodes in every value form load and fold") {
  ModelBuilder b(13);
  b.input("x", {-1, 2, 3}).output("y").output("floats_out").output("sum_out");
  test::add_tensor_attr(b.node("Constant", {}, {"c_tensor"}), "value", {3}, {1.f, 2.f, 3.f});
  test::add_float_attr(b.node("Constant", {}, {"c_float"}), "value_float", 0.5f);
  test::add_floats_attr(b.node("Constant", {}, {"floats_out"}), "value_floats", {10.f, 20.f, 30.f});
  test::add_int_attr(b.node("Constant", {}, {"c_int"}), "value_int", 2);
  test::add_ints_attr(b.node("Constant", {}, {"c_ints"}), "value_ints", {-1, 3});
  test::add_int_attr(b.node("Cast", {"c_int"}, {"c_int_f"}), "to", onnx::TensorProto::FLOAT);
  b.node("Add", {"x", "c_tensor"}, {"a"});
  b.node("Mul", {"a", "c_float"}, {"m"});
  b.node("Add", {"m", "floats_out"}, {"a2"});
  b.node("Mul", {"a2", "c_int_f"}, {"m2"});
  b.node("Reshape", {"m2", "c_ints"}, {"y"});
  // A constant expression that is itself a graph output.
  b.node("Add", {"c_tensor", "floats_out"}, {"sum_out"});
  Graph g = load_onnx(b.write(test::temp_dir("constant_forms")));

  auto plan = test::plan_cpu(g, {{"x", {2, 2, 3}}});
  CHECK(!has_step(*plan, "Constant"));
  CHECK(!has_step(*plan, "Cast"));
  CHECK(plan->folded_nodes >= 6);
  CHECK(plan->graph.constants.at("c_float").shape() == Shape{});
  CHECK(plan->graph.constants.at("c_ints").dtype() == DType::Int64);

  Tensor x = test::random_tensor({2, 2, 3}, 5);
  auto out = test::run_plan(*plan, {{"x", x}});
  REQUIRE(out[0].shape() == Shape{4, 3});
  const float ct[3] = {1, 2, 3}, cf[3] = {10, 20, 30};
  for (int64_t i = 0; i < x.numel(); ++i) {
    float want = ((x.data_as<float>()[i] + ct[i % 3]) * 0.5f + cf[i % 3]) * 2.f;
    CHECK(out[0].data_as<float>()[i] == doctest::Approx(want));
  }
  REQUIRE(out[1].shape() == Shape{3});
  CHECK(out[1].data_as<float>()[2] == 30.f);
  REQUIRE(out[2].shape() == Shape{3});
  CHECK(out[2].data_as<float>()[0] == 11.f);
  CHECK(out[2].data_as<float>()[2] == 33.f);

  auto reference = test::run_node_by_node(g, {{"x", x}});
  for (size_t i = 0; i < out.size(); ++i) CHECK(test::max_abs_diff(out[i], reference[i]) == 0);
}

TEST_CASE("constant folding: an initializer that is itself a graph output") {
  test::GraphBuilder b;
  b.input("x", {-1, 3});
  b.constant("table", test::f32_tensor({2}, {4.f, 5.f}));
  b.node("Relu", {"x"}, {"y"});
  Graph g = b.output("y").output("table").build();
  auto out = test::run_engine(g, {{"x", test::random_tensor({2, 3}, 1)}});
  REQUIRE(out.size() == 2);
  REQUIRE(out[1].shape() == Shape{2});
  CHECK(out[1].data_as<float>()[1] == 5.f);
}
