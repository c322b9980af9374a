// ONNX loading: initializers in every storage form, external data, symbolic dims, and bad files.
#include <doctest/doctest.h>

#include <fstream>

#include "engine/core/error.h"
#include "engine/loader/onnx_loader.h"
#include "model_builder.h"

using namespace ie;
using ie::test::ModelBuilder;

namespace {
ModelBuilder small_model() {
  ModelBuilder b;
  b.input("x", {-1, 3}).output("y");
  b.initializer("w", {3}, {1.f, 2.f, 3.f});
  b.node("Add", {"x", "w"}, {"y"});
  return b;
}
}  // namespace

TEST_CASE("loader reads inputs with symbolic dims, initializers and nodes") {
  auto path = small_model().write(test::temp_dir("loader"));
  Graph g = load_onnx(path);
  REQUIRE(g.inputs.size() == 1);
  CHECK(g.inputs[0].dims == std::vector<int64_t>{-1, 3});
  CHECK(g.inputs[0].dim_names[0] == "batch");
  REQUIRE(g.constants.count("w"));
  CHECK(g.constants["w"].data_as<float>()[2] == 3.f);
  CHECK(g.nodes.size() == 1);
  CHECK(g.opset == 17);
}

TEST_CASE("loader reads external data and typed fields") {
  ModelBuilder b;
  b.external_data("weights.bin");
  b.input("x", {2}).output("y");
  b.initializer("a", {2}, {5.f, 6.f});
  b.initializer("b", {2}, {7.f, 8.f});
  b.initializer_i64("shape", {1}, {2});
  b.node("Add", {"x", "b"}, {"y"});
  auto path = b.write(test::temp_dir("external"));
  Graph g = load_onnx(path);
  CHECK(g.constants["a"].data_as<float>()[1] == 6.f);
  CHECK(g.constants["b"].data_as<float>()[0] == 7.f);
  CHECK(g.constants["shape"].data_as<int64_t>()[0] == 2);
}

TEST_CASE("external data: missing file, out of range, escaping path") {
  auto dir = test::temp_dir("external_bad");
  ModelBuilder b;
  b.external_data("weights.bin");
  b.input("x", {2}).output("y");
  b.initializer("b", {2}, {7.f, 8.f});
  b.node("Add", {"x", "b"}, {"y"});
  auto path = b.write(dir);

  SUBCASE("missing file") {
    std::filesystem::remove(dir / "weights.bin");
    CHECK_THROWS_WITH_AS(load_onnx(path), doctest::Contains("cannot be opened"), Error);
  }
  SUBCASE("out of range") {
    std::ofstream(dir / "weights.bin", std::ios::binary | std::ios::trunc) << "abc";
    CHECK_THROWS_WITH_AS(load_onnx(path), doctest::Contains("outside"), Error);
  }
  SUBCASE("path escaping the model folder") {
    auto& init = *b.proto().mutable_graph()->mutable_initializer(0);
    init.mutable_external_data(0)->set_value("../../etc/passwd");
    auto p2 = b.write(dir, "escape.onnx");
    CHECK_THROWS_WITH_AS(load_onnx(p2), doctest::Contains("escapes"), Error);
  }
}

TEST_CASE("truncated, corrupt and missing model files are refused by name") {
  auto dir = test::temp_dir("corrupt");
  auto path = small_model().write(dir);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir / "truncated.onnx", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CHECK_THROWS_WITH_AS(load_onnx((dir / "truncated.onnx").string()), doctest::Contains("truncated.onnx"), Error);
  std::ofstream(dir / "garbage.onnx", std::ios::binary) << "\xff\xff\xff\xff garbage";
  CHECK_THROWS_WITH_AS(load_onnx((dir / "garbage.onnx").string()), doctest::Contains("not a valid ONNX model"), Error);
  CHECK_THROWS_WITH_AS(load_onnx((dir / "nope.onnx").string()), doctest::Contains("not found"), Error);
}

TEST_CASE("opset and domain checks") {
  SUBCASE("unknown domain is refused by name") {
    ModelBuilder b;
    b.input("x", {2}).output("y");
    auto& n = b.node("Frobnicate", {"x"}, {"y"});
    n.set_domain("com.example");
    auto path = b.write(test::temp_dir("domain"));
    CHECK_THROWS_WITH_AS(load_onnx(path), doctest::Contains("com.example"), Unsupported);
  }
  SUBCASE("opset outside the supported range") {
    ModelBuilder b(99);
    b.input("x", {2}).output("y");
    b.node("Relu", {"x"}, {"y"});
    auto path = b.write(test::temp_dir("opset"));
    CHECK_THROWS_WITH_AS(load_onnx(path), doctest::Contains("opset 99"), Unsupported);
  }
}

TEST_CASE("graph validation names the node and tensor") {
  ModelBuilder b;
  b.input("x", {2}).output("y");
  b.node("Relu", {"nowhere"}, {"y"});
  auto path = b.write(test::temp_dir("undefined"));
  CHECK_THROWS_WITH_AS(load_onnx(path), doctest::Contains("nowhere"), Error);
}
