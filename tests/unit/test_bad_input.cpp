// Bad models and bad requests through the public API: each is an ie::Error of kind BadInput whose message names
// the thing that was wrong (the node and op, the input, the file).
#include <doctest/doctest.h>

#include <fstream>

#include "engine/core/error.h"
#include "model_builder.h"

using namespace ie;
using test::ModelBuilder;

namespace {

// x[batch, 3] + y[batch, 3] -> z
ModelBuilder two_input_model() {
  ModelBuilder b;
  b.input("x", {-1, 3}).input("y", {-1, 3}).output("z");
  b.node("Add", {"x", "y"}, {"z"});
  return b;
}

Session two_input_session() {
  static const std::string path = two_input_model().write(test::temp_dir("bad_input"));
  return Engine::load(path, Options{"cpu"}).create_session();
}

Tensor f32(std::vector<int64_t> shape) { return Tensor(DType::Float32, std::move(shape)); }

// The message of the Error that `fn` throws; the kind must be BadInput.
template <class Fn>
std::string bad_input_message(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::BadInput);
    CHECK(e.exit_code() == 3);
    return e.what();
  }
  FAIL("no ie::Error was thrown");
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("bad input: an unsupported op is refused at load, naming the node and the op") {
  ModelBuilder b;
  b.input("x", {-1, 3}).output("y");
  b.node("Relu", {"x"}, {"r"});
  b.node("FrobnicateV2", {"r"}, {"y"}).set_name("frob");
  auto path = b.write(test::temp_dir("unsupported"));
  bool unsupported = false;
  std::string msg = bad_input_message([&] {
    try {
      Engine::load(path, Options{"cpu"});
    } catch (const Unsupported&) {
      unsupported = true;
      throw;
    }
  });
  CHECK(unsupported);
  CHECK(contains(msg, "'frob'"));
  CHECK(contains(msg, "FrobnicateV2"));
  CHECK(contains(msg, "not supported"));
  CHECK(contains(msg, "model.onnx"));
}

TEST_CASE("bad input: a wrong input name names the given name and the expected ones") {
  Session s = two_input_session();
  std::string msg = bad_input_message([&] { s.run({{"x", f32({2, 3})}, {"yy", f32({2, 3})}}); });
  CHECK(contains(msg, "'yy' is not an input"));
  CHECK(contains(msg, "'x', 'y'"));
}

TEST_CASE("bad input: a wrong shape names the input, the dimension and the expected value") {
  Session s = two_input_session();
  std::string msg = bad_input_message([&] { s.run({{"x", f32({2, 3})}, {"y", f32({2, 4})}}); });
  CHECK(contains(msg, "input 'y'"));
  CHECK(contains(msg, "dimension 1 must be 3, got 4"));
  msg = bad_input_message([&] { s.run({{"x", f32({2, 3, 1})}, {"y", f32({2, 3})}}); });
  CHECK(contains(msg, "input 'x'"));
  CHECK(contains(msg, "expected rank 2"));
}

TEST_CASE("bad input: a wrong dtype names the input and both dtypes") {
  Session s = two_input_session();
  std::string msg = bad_input_message([&] { s.run({{"x", f32({2, 3})}, {"y", Tensor(DType::Float64, {2, 3})}}); });
  CHECK(contains(msg, "input 'y'"));
  CHECK(contains(msg, "expected dtype float32, got float64"));
  // Also once a plan for these shapes is cached.
  s.run({{"x", f32({2, 3})}, {"y", f32({2, 3})}});
  msg = bad_input_message([&] { s.run({{"x", Tensor(DType::Int32, {2, 3})}, {"y", f32({2, 3})}}); });
  CHECK(contains(msg, "input 'x'"));
  CHECK(contains(msg, "got int32"));
}

TEST_CASE("bad input: a missing input is named") {
  Session s = two_input_session();
  std::string msg = bad_input_message([&] { s.run({{"x", f32({2, 3})}}); });
  CHECK(contains(msg, "input 'y' was not given"));
}

TEST_CASE("bad input: an input without data is named") {
  Session s = two_input_session();
  std::string msg = bad_input_message([&] { s.run({{"x", f32({2, 3})}, {"y", Tensor()}}); });
  CHECK(contains(msg, "input 'y' has no data"));
}

TEST_CASE("bad input: an empty batch on a symbolic dim names the input") {
  Session s = two_input_session();
  std::string msg = bad_input_message([&] { s.run({{"x", f32({0, 3})}, {"y", f32({0, 3})}}); });
  CHECK(contains(msg, "input 'x' is empty"));
  CHECK(contains(msg, "[0,3]"));
  CHECK(contains(msg, "batch"));
}

TEST_CASE("bad input: an extra unknown input is named") {
  Session s = two_input_session();
  std::string msg = bad_input_message([&] { s.run({{"x", f32({2, 3})}, {"y", f32({2, 3})}, {"mask", f32({2, 3})}}); });
  CHECK(contains(msg, "'mask' is not an input of the model"));
  // The same after the shapes have been planned once.
  s.run({{"x", f32({2, 3})}, {"y", f32({2, 3})}});
  msg = bad_input_message([&] { s.run({{"x", f32({2, 3})}, {"y", f32({2, 3})}, {"mask", f32({2, 3})}}); });
  CHECK(contains(msg, "'mask'"));
}

TEST_CASE("bad input: a truncated ONNX file names the file") {
  auto dir = test::temp_dir("truncated_model");
  auto path = two_input_model().write(dir);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir / "cut.onnx", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::string msg = bad_input_message([&] { Engine::load((dir / "cut.onnx").string(), Options{"cpu"}); });
  CHECK(contains(msg, "cut.onnx"));
  CHECK(contains(msg, "truncated"));
}

namespace {

// x + w with w stored as external data in weights.bin.
std::string external_model(const std::filesystem::path& dir) {
  ModelBuilder b;
  b.external_data("weights.bin");
  b.input("x", {-1, 4}).output("y");
  b.initializer("w", {4}, {1.f, 2.f, 3.f, 4.f});
  b.node("Add", {"x", "w"}, {"y"});
  return b.write(dir);
}

}  // namespace

TEST_CASE("bad input: a missing external data file names the file and the initializer") {
  auto dir = test::temp_dir("missing_external");
  auto path = external_model(dir);
  std::filesystem::remove(dir / "weights.bin");
  std::string msg = bad_input_message([&] { Engine::load(path, Options{"cpu"}); });
  CHECK(contains(msg, "weights.bin"));
  CHECK(contains(msg, "initializer 'w'"));
  CHECK(contains(msg, "cannot be opened"));
}

TEST_CASE("bad input: out-of-range external data names the range, the file and the initializer") {
  auto dir = test::temp_dir("short_external");
  auto path = external_model(dir);
  std::filesystem::resize_file(dir / "weights.bin", 10);
  std::string msg = bad_input_message([&] { Engine::load(path, Options{"cpu"}); });
  CHECK(contains(msg, "initializer 'w'"));
  CHECK(contains(msg, "[0, 16)"));
  CHECK(contains(msg, "weights.bin"));
  CHECK(contains(msg, "10 bytes"));
}
