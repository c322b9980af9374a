// Shape, Size, Constant, ConstantOfShape, Reshape, Flatten, Squeeze, Unsqueeze.
#include "tests/ops/tensor_helpers.h"

using namespace ie;
using namespace ie::test;

TEST_CASE("Shape gives the dims as a known int64 output, with opset-15 start/end") {
  Tensor x(DType::Float16, {2, 3, 5, 7});
  check_tensor(run1(make_node("Shape", {"x"}, {"y"}), {x}), DType::Int64, {4}, {2, 3, 5, 7});
  Attributes a;
  a.set_int("start", -3);
  a.set_int("end", -1);
  check_tensor(run1(make_node("Shape", {"x"}, {"y"}, a), {x}), DType::Int64, {2}, {3, 5});
  a.set_int("start", 10);  // clamped to rank: empty
  check_tensor(run1(make_node("Shape", {"x"}, {"y"}, a), {x}), DType::Int64, {0}, {});

  // Inference alone already knows the value, so the planner can fold it.
  InferContext ctx = infer_node(make_node("Shape", {"x"}, {"y"}), {{DType::Float32, {4, 9}}}, {nullptr}, 17);
  REQUIRE_FALSE(ctx.output_constants[0].empty());
  CHECK(values(ctx.output_constants[0]) == std::vector<double>{4, 9});
}

TEST_CASE("Size counts the elements") {
  check_tensor(run1(make_node("Size", {"x"}, {"y"}), {Tensor(DType::Int64, {3, 0, 2})}), DType::Int64, {}, {0});
  check_tensor(run1(make_node("Size", {"x"}, {"y"}), {Tensor(DType::Bool, {3, 5})}), DType::Int64, {}, {15});
}

TEST_CASE("Constant reads every value form") {
  Attributes a;
  a.set_float("value_float", 2.5f);
  check_tensor(run1(make_node("Constant", {}, {"y"}, a), {}), DType::Float32, {}, {2.5});
  check_tensor(run1(make_node("Constant", {}, {"y"}, int_attr("value_int", -7)), {}), DType::Int64, {}, {-7});
  check_tensor(run1(make_node("Constant", {}, {"y"}, ints_attr("value_ints", {1, -2, 3})), {}), DType::Int64, {3},
               {1, -2, 3});
  Attributes fl;
  Attribute floats;
  floats.kind = Attribute::Kind::Floats;
  floats.floats = {0.5f, 1.5f};
  fl.set("value_floats", floats);
  check_tensor(run1(make_node("Constant", {}, {"y"}, fl), {}), DType::Float32, {2}, {0.5, 1.5});
  Attributes t;
  Attribute value;
  value.kind = Attribute::Kind::Tensor;
  value.t = f16({2, 1}, {1.5f, -3.f});
  t.set("value", value);
  check_tensor(run1(make_node("Constant", {}, {"y"}, t), {}), DType::Float16, {2, 1}, {1.5, -3});
  // Also through the kernel, for an unfolded node.
  KernelInit init{make_node("Constant", {}, {"y"}, t), {}, {}, {{DType::Float16, {2, 1}}}, 17};
  auto kernel = (*OpRegistry::get().kernel("", "Constant", "cpu"))(init);
  Tensor out(DType::Float16, {2, 1});
  KernelContext kctx;
  kctx.outputs.push_back(TensorRef{out.data(), out.dtype(), out.shape()});
  kernel->run(kctx);
  CHECK(values(out) == std::vector<double>{1.5, -3});
}

TEST_CASE("Constant rejects string, sparse and missing values") {
  Attributes s;
  s.set_string("value_string", "hello");
  CHECK_THROWS_WITH_AS(run1(make_node("Constant", {}, {"y"}, s), {}), doctest::Contains("value_string"), Error);
  Attributes sp;
  sp.set("sparse_value", Attribute{});
  CHECK_THROWS_WITH_AS(run1(make_node("Constant", {}, {"y"}, sp), {}), doctest::Contains("sparse_value"), Error);
  CHECK_THROWS_AS(run1(make_node("Constant", {}, {"y"}), {}), Error);
}

TEST_CASE("ConstantOfShape fills with the value attribute, float 0 by default") {
  check_tensor(run1(make_node("ConstantOfShape", {"s"}, {"y"}), {i64({2}, {2, 3})}), DType::Float32, {2, 3},
               std::vector<double>(6, 0));
  Attributes a;
  Attribute value;
  value.kind = Attribute::Kind::Tensor;
  value.t = i64({1}, {-4});
  a.set("value", value);
  check_tensor(run1(make_node("ConstantOfShape", {"s"}, {"y"}, a), {i64({3}, {1, 3, 1})}), DType::Int64, {1, 3, 1},
               {-4, -4, -4});
  value.t = f16({1}, {0.5f});
  a.set("value", value);
  check_tensor(run1(make_node("ConstantOfShape", {"s"}, {"y"}, a), {i64({0}, {})}), DType::Float16, {}, {0.5});
  CHECK_THROWS_AS(run1(make_node("ConstantOfShape", {"s"}, {"y"}), {i64({2}, {2, -1})}), Error);
}

TEST_CASE("Reshape copies 0 dims, infers -1, honours allowzero") {
  Tensor x = iota<int64_t>({2, 3, 5});
  Tensor y = run1(make_node("Reshape", {"x", "s"}, {"y"}), {x, i64({3}, {0, -1, 3})});
  check_tensor(y, DType::Int64, {2, 5, 3}, values(x));
  check_tensor(run1(make_node("Reshape", {"x", "s"}, {"y"}), {f16({3, 1}, {1, 2, 3}), i64({1}, {-1})}), DType::Float16,
               {3}, {1, 2, 3});
  // allowzero=1: 0 is a real zero-sized dim.
  Tensor empty(DType::Float32, {0, 3});
  check_tensor(run1(make_node("Reshape", {"x", "s"}, {"y"}, int_attr("allowzero", 1)), {empty, i64({2}, {3, 0})}),
               DType::Float32, {3, 0}, {});
  // Reshape-1 took the shape as an attribute.
  check_tensor(run1(make_node("Reshape", {"x"}, {"y"}, ints_attr("shape", {5, 6})), {x}, 1), DType::Int64, {5, 6},
               values(x));
}

TEST_CASE("Reshape rejects bad target shapes") {
  Tensor x(DType::Float32, {2, 3, 5});
  auto node = make_node("Reshape", {"x", "s"}, {"y"});
  CHECK_THROWS_WITH_AS(run1(node, {x, i64({3}, {-1, -1, 5})}), doctest::Contains("more than one -1"), Error);
  CHECK_THROWS_WITH_AS(run1(node, {x, i64({2}, {4, -1})}), doctest::Contains("cannot reshape"), Error);
  CHECK_THROWS_WITH_AS(run1(node, {x, i64({2}, {7, 5})}), doctest::Contains("cannot reshape"), Error);
  CHECK_THROWS_AS(run1(node, {x, i64({2}, {-2, 15})}), Error);
  CHECK_THROWS_AS(run1(node, {x, i64({4}, {0, 0, 0, 0})}), Error);
  CHECK_THROWS_AS(run1(node, {x, f32({1}, {30})}), Error);  // shape must be int64
}

TEST_CASE("Reshape needs a shape known at plan time") {
  auto node = make_node("Reshape", {"x", "s"}, {"y"});
  CHECK_THROWS_WITH_AS(infer_node(node, {{DType::Float32, {6}}, {DType::Int64, {2}}}, {nullptr, nullptr}, 17),
                       doctest::Contains("plan time"), Error);
}

TEST_CASE("Flatten splits the dims at axis, negative axes included") {
  Tensor x = iota<int64_t>({2, 3, 1, 5});
  auto flat = [&](int64_t axis) { return run1(make_node("Flatten", {"x"}, {"y"}, int_attr("axis", axis)), {x}); };
  check_tensor(flat(0), DType::Int64, {1, 30}, values(x));
  check_tensor(flat(2), DType::Int64, {6, 5}, values(x));
  check_tensor(flat(-1), DType::Int64, {6, 5}, values(x));
  check_tensor(flat(4), DType::Int64, {30, 1}, values(x));
  check_tensor(run1(make_node("Flatten", {"x"}, {"y"}), {x}), DType::Int64, {2, 15}, values(x));
  CHECK_THROWS_AS(flat(5), Error);
  CHECK_THROWS_AS(flat(-5), Error);
}

TEST_CASE("Squeeze: axes as attribute before 13, as input from 13, or all size-1 dims") {
  Tensor x = iota<float>({1, 3, 1, 2});
  check_tensor(run1(make_node("Squeeze", {"x"}, {"y"}), {x}), DType::Float32, {3, 2}, values(x));
  check_tensor(run1(make_node("Squeeze", {"x"}, {"y"}, ints_attr("axes", {-2})), {x}, 11), DType::Float32, {1, 3, 2},
               values(x));
  check_tensor(run1(make_node("Squeeze", {"x", "a"}, {"y"}), {x, i64({1}, {0})}, 13), DType::Float32, {3, 1, 2},
               values(x));
  CHECK_THROWS_WITH_AS(run1(make_node("Squeeze", {"x", "a"}, {"y"}), {x, i64({1}, {1})}, 13),
                       doctest::Contains("not 1"), Error);
  CHECK_THROWS_AS(run1(make_node("Squeeze", {"x", "a"}, {"y"}), {x, i64({1}, {4})}, 13), Error);
}

TEST_CASE("Unsqueeze inserts dims at output positions, any order, negative allowed") {
  Tensor x = iota<int64_t>({3, 2});
  check_tensor(run1(make_node("Unsqueeze", {"x", "a"}, {"y"}), {x, i64({3}, {4, 0, -3})}, 13), DType::Int64,
               {1, 3, 1, 2, 1}, values(x));
  check_tensor(run1(make_node("Unsqueeze", {"x"}, {"y"}, ints_attr("axes", {1})), {x}, 11), DType::Int64, {3, 1, 2},
               values(x));
  check_tensor(run1(make_node("Unsqueeze", {"x", "a"}, {"y"}), {i64({}, {7}), i64({1}, {0})}, 13), DType::Int64, {1},
               {7});
  CHECK_THROWS_WITH_AS(run1(make_node("Unsqueeze", {"x", "a"}, {"y"}), {x, i64({2}, {1, -3})}, 13),
                       doctest::Contains("same axis"), Error);
  CHECK_THROWS_AS(run1(make_node("Unsqueeze", {"x", "a"}, {"y"}), {x, i64({1}, {3})}, 13), Error);
}

TEST_CASE("the legacy exporter's Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain folds") {
  Tensor x = iota<float>({4, 10, 64});
  Tensor shape = run1(make_node("Shape", {"x"}, {"s"}), {x});
  Tensor batch = run1(make_node("Gather", {"s", "i"}, {"b"}, int_attr("axis", 0)), {shape, i64({}, {0})});
  check_tensor(batch, DType::Int64, {}, {4});
  Tensor b1 = run1(make_node("Unsqueeze", {"b", "a"}, {"b1"}), {batch, i64({1}, {0})}, 13);
  Tensor target = run1(make_node("Concat", {"b1", "c"}, {"t"}, int_attr("axis", 0)), {b1, i64({1}, {-1})});
  check_tensor(target, DType::Int64, {2}, {4, -1});
  check_tensor(run1(make_node("Reshape", {"x", "t"}, {"y"}), {x, target}), DType::Float32, {4, 640}, values(x));
}
