// Shape inference: the symbolic batch bound at plan time, dtypes and shapes through a chain of ops, validation
// errors that name the node, op and tensors, and inputs that do not match their declaration.
#include <doctest/doctest.h>

#include "engine/core/error.h"
#include "engine/planner/shape_inference.h"
#include "graph_builder.h"
#include "model_builder.h"

using namespace ie;
using test::GraphBuilder;

namespace {

Attributes ints(const char* name, std::vector<int64_t> v) {
  Attributes a;
  a.set_ints(name, std::move(v));
  return a;
}

// x[batch,3,8,8] -> Conv -> Relu -> MaxPool -> Flatten -> MatMul -> Softmax -> ArgMax, plus a Shape side chain.
Graph conv_chain() {
  GraphBuilder b;
  b.input("x", {-1, 3, 8, 8});
  b.constant("w", test::random_tensor({4, 3, 3, 3}, 1));
  b.constant("fc", test::random_tensor({64, 10}, 2));
  b.node("Conv", {"x", "w"}, {"c"}, ints("pads", {1, 1, 1, 1}));
  b.node("Relu", {"c"}, {"r"});
  Attributes pool = ints("kernel_shape", {2, 2});
  pool.set_ints("strides", {2, 2});
  b.node("MaxPool", {"r"}, {"p"}, pool);
  b.node("Flatten", {"p"}, {"f"});
  b.node("MatMul", {"f", "fc"}, {"logits"});
  b.node("Softmax", {"logits"}, {"probs"});
  Attributes argmax;
  argmax.set_int("axis", 1);
  argmax.set_int("keepdims", 0);
  b.node("ArgMax", {"probs"}, {"label"}, argmax);
  Attributes cast;
  cast.set_int("to", static_cast<int64_t>(DType::Float64));
  b.node("Cast", {"probs"}, {"probs64"}, cast);
  b.node("Shape", {"p"}, {"pshape"});
  b.output("probs").output("label", DType::Int64).output("probs64", DType::Float64).output("pshape", DType::Int64);
  return b.build();
}

// The message of the Error that `fn` throws (fails the test when it throws nothing or another type).
template <class Fn>
std::string error_of(Fn&& fn, ErrorKind kind = ErrorKind::BadInput) {
  try {
    fn();
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    return e.what();
  }
  FAIL("no ie::Error was thrown");
  return "";
}

}  // namespace

TEST_CASE("shape inference: the symbolic batch is bound at plan time") {
  Graph model = conv_chain();
  for (int64_t batch : {1, 7, 300}) {
    CAPTURE(batch);
    Graph g = model;
    InferenceResult r = infer_and_fold(g, {{"x", {batch, 3, 8, 8}}});
    CHECK(r.infos.at("c").shape == Shape{batch, 4, 8, 8});
    CHECK(r.infos.at("p").shape == Shape{batch, 4, 4, 4});
    CHECK(r.infos.at("f").shape == Shape{batch, 64});
    CHECK(r.infos.at("probs").shape == Shape{batch, 10});
    CHECK(r.infos.at("label").shape == Shape{batch});
    // Shape of a bound shape is a plan-time constant.
    REQUIRE(g.constants.count("pshape"));
    const Tensor& ps = g.constants.at("pshape");
    CHECK(std::vector<int64_t>(ps.data_as<int64_t>(), ps.data_as<int64_t>() + 4) == Shape{batch, 4, 4, 4});
  }
}

TEST_CASE("shape inference: the public API plans and runs each batch size") {
  Engine engine = Engine::from_graph(conv_chain(), Options{"cpu"});
  Session session = engine.create_session();
  for (int64_t batch : {1, 7, 300}) {
    CAPTURE(batch);
    auto out = session.run({{"x", test::random_tensor({batch, 3, 8, 8}, 3)}});
    CHECK(out.at("probs").shape() == Shape{batch, 10});
    CHECK(out.at("label").shape() == Shape{batch});
    CHECK(out.at("pshape").data_as<int64_t>()[0] == batch);
  }
  Options pre{"cpu"};
  pre.batch = 7;
  std::string text = Engine::from_graph(conv_chain(), pre).describe({});
  CHECK(text.find("x[7,3,8,8]") != std::string::npos);
}

TEST_CASE("shape inference: dtypes and shapes through a chain of ops") {
  Graph g = conv_chain();
  InferenceResult r = infer_and_fold(g, {{"x", {2, 3, 8, 8}}});
  struct Want {
    const char* name;
    DType dtype;
    Shape shape;
  };
  for (const Want& w : {Want{"x", DType::Float32, {2, 3, 8, 8}}, Want{"c", DType::Float32, {2, 4, 8, 8}},
                        Want{"r", DType::Float32, {2, 4, 8, 8}}, Want{"p", DType::Float32, {2, 4, 4, 4}},
                        Want{"f", DType::Float32, {2, 64}}, Want{"logits", DType::Float32, {2, 10}},
                        Want{"probs", DType::Float32, {2, 10}}, Want{"label", DType::Int64, {2}},
                        Want{"probs64", DType::Float64, {2, 10}}, Want{"pshape", DType::Int64, {4}}}) {
    CAPTURE(w.name);
    REQUIRE(r.infos.count(w.name));
    CHECK(r.infos.at(w.name).dtype == w.dtype);
    CHECK(r.infos.at(w.name).shape == w.shape);
  }
  CHECK(r.folded_nodes == 1);  // the Shape node
  CHECK(g.nodes.size() == 8);
}

TEST_CASE("shape inference: validation errors name the node, its op and the tensors") {
  SUBCASE("MatMul with mismatched inner dims") {
    GraphBuilder b;
    b.input("a", {-1, 3}).constant("weight", test::random_tensor({4, 5}, 1));
    b.node("MatMul", {"a", "weight"}, {"y"}, {}, "proj");
    Graph g = b.output("y").build();
    std::string msg = error_of([&] { infer_and_fold(g, {{"a", {2, 3}}}); });
    CHECK(msg.find("'proj'") != std::string::npos);
    CHECK(msg.find("(MatMul)") != std::string::npos);
    CHECK(msg.find("'a' float32[2,3]") != std::string::npos);
    CHECK(msg.find("'weight' float32[4,5]") != std::string::npos);
    CHECK(msg.find("inner dims") != std::string::npos);
  }
  SUBCASE("Add whose inputs do not broadcast") {
    GraphBuilder b;
    b.input("a", {-1, 3}).constant("bias", test::random_tensor({4}, 1));
    b.node("Add", {"a", "bias"}, {"y"}, {}, "add_bias");
    Graph g = b.output("y").build();
    std::string msg = error_of([&] { infer_and_fold(g, {{"a", {2, 3}}}); });
    CHECK(msg.find("'add_bias' (Add)") != std::string::npos);
    CHECK(msg.find("do not broadcast") != std::string::npos);
    CHECK(msg.find("'bias' float32[4]") != std::string::npos);
  }
  SUBCASE("Conv with a weight of the wrong rank") {
    GraphBuilder b;
    b.input("x", {-1, 3, 8, 8}).constant("kernel", test::random_tensor({4, 3, 3}, 1));
    b.node("Conv", {"x", "kernel"}, {"y"}, {}, "conv1");
    Graph g = b.output("y").build();
    std::string msg = error_of([&] { infer_and_fold(g, {{"x", {1, 3, 8, 8}}}); });
    CHECK(msg.find("'conv1' (Conv)") != std::string::npos);
    CHECK(msg.find("rank") != std::string::npos);
    CHECK(msg.find("'kernel' float32[4,3,3]") != std::string::npos);
  }
  SUBCASE("the same errors come out of Engine::describe") {
    GraphBuilder b;
    b.input("a", {-1, 3}).constant("weight", test::random_tensor({4, 5}, 1));
    b.node("MatMul", {"a", "weight"}, {"y"}, {}, "proj");
    Engine engine = Engine::from_graph(b.output("y").build(), Options{"cpu"});
    std::string msg = error_of([&] { engine.describe({{"a", {2, 3}}}); });
    CHECK(msg.find("'proj' (MatMul)") != std::string::npos);
    CHECK(msg.find("'weight'") != std::string::npos);
  }
}

TEST_CASE("shape inference: inputs that do not match their declaration") {
  GraphBuilder b;
  b.input("pixels", {-1, 3, 4});
  b.node("Relu", {"pixels"}, {"y"});
  Engine engine = Engine::from_graph(b.output("y").build(), Options{"cpu"});
  Session session = engine.create_session();
  struct Case {
    const char* what;
    std::string name;
    Tensor tensor;
    std::vector<std::string> expected;  // fragments of the message
  };
  for (const Case& c :
       {Case{"wrong rank", "pixels", Tensor(DType::Float32, {2, 3}), {"expected rank 3", "[2,3]"}},
        Case{"wrong fixed dim", "pixels", Tensor(DType::Float32, {2, 5, 4}), {"dimension 1 must be 3, got 5"}},
        Case{"wrong dtype", "pixels", Tensor(DType::Int64, {2, 3, 4}), {"expected dtype float32, got int64"}},
        Case{"wrong name", "pixel", Tensor(DType::Float32, {2, 3, 4}), {"'pixel' is not an input"}}}) {
    CAPTURE(c.what);
    std::string msg = error_of([&] { session.run({{c.name, c.tensor}}); });
    CHECK(msg.find("'pixels'") != std::string::npos);
    for (auto& fragment : c.expected) CHECK_MESSAGE(msg.find(fragment) != std::string::npos, msg);
  }
  // The same checks run when planning for given shapes.
  Graph g = b.build();
  std::string msg = error_of([&] { infer_and_fold(g, {{"pixels", {2, 3, 5}}}); });
  CHECK(msg.find("'pixels': dimension 2 must be 4, got 5") != std::string::npos);
  msg = error_of([&] { infer_and_fold(g, {}); });
  CHECK(msg.find("'pixels'") != std::string::npos);
}

TEST_CASE("shape inference: element counts that overflow int64 fail clearly") {
  SUBCASE("an input shape") {
    GraphBuilder b;
    b.input("x", {-1, -1, -1});
    b.node("Relu", {"x"}, {"y"});
    Graph g = b.output("y").build();
    const int64_t big = int64_t(1) << 30;
    std::string msg = error_of([&] { infer_and_fold(g, {{"x", {big, big, big}}}); });
    CHECK(msg.find("'x'") != std::string::npos);
    CHECK(msg.find("overflows") != std::string::npos);
  }
  SUBCASE("a node's output") {
    GraphBuilder b;
    b.input("a", {-1, 4}).input("b", {4, -1});
    b.node("MatMul", {"a", "b"}, {"y"}, {}, "outer");
    Engine engine = Engine::from_graph(b.output("y").build(), Options{"cpu"});
    const int64_t big = int64_t(1) << 32;
    std::string msg = error_of([&] { engine.describe({{"a", {big, 4}}, {"b", {4, big}}}); });
    CHECK(msg.find("'outer' (MatMul)") != std::string::npos);
    CHECK(msg.find("overflows") != std::string::npos);
  }
  SUBCASE("a host tensor") {
    const int64_t big = int64_t(1) << 40;
    std::string msg = error_of([&] { Tensor t(DType::Float32, {big, big}); });
    CHECK(msg.find("overflow") != std::string::npos);
  }
}
