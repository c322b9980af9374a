// Bad models and bad requests through the public API: each is an ie::Error of kind BadInput whose message names
// the thing that was wrong (the node and op, the input, the file).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <climits>
#include <fstream>
#include <functional>

#include "engine/core/error.h"
#include "engine/core/parallel.h"
#include "engine/io/tensor_file.h"
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

// --- Hostile models (hardening): every size a model claims is checked, and checked before anything is allocated.

namespace {

constexpr int64_t k2p31 = int64_t(1) << 31;

// Plans the model at its declared shapes on the CPU (what `inspect` does) and returns the BadInput message.
std::string plan_message(const std::string& path, const Options& options = Options{"cpu"}) {
  return bad_input_message([&] { Engine::load(path, options).describe({}); });
}

// A model whose one input x[1] is added to the output of `op` on constant inputs.
std::string write_op_model(const std::string& tag, const std::function<void(ModelBuilder&)>& add_nodes) {
  ModelBuilder b;
  b.input("x", {1}).output("y");
  add_nodes(b);
  b.node("Add", {"big", "x"}, {"y"});
  return b.write(test::temp_dir(tag));
}

// Kind and message of the Error that `fn` throws.
template <class Fn>
std::pair<ErrorKind, std::string> error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return {e.kind(), e.what()};
  }
  FAIL("no ie::Error was thrown");
  return {ErrorKind::CheckFailed, ""};
}

}  // namespace

TEST_CASE("hostile: ConstantOfShape [2^31, 2^31] fails at plan time instead of wrapping the arena's byte count") {
  auto path = write_op_model("cos_overflow", [](ModelBuilder& b) {
    b.initializer_i64("shape", {2}, {k2p31, k2p31});
    b.node("ConstantOfShape", {"shape"}, {"big"}).set_name("cos");
  });
  std::string msg = plan_message(path);
  CHECK(contains(msg, "node 'cos' (ConstantOfShape)"));
  CHECK(contains(msg, "overflows 64 bits"));
}

TEST_CASE("hostile: Expand to [2^31, 2^31] and Tile by [2^62, 2^62] fail naming the node") {
  auto expand = write_op_model("expand_overflow", [](ModelBuilder& b) {
    b.initializer("one", {1, 1}, {1.f});
    b.initializer_i64("shape", {2}, {k2p31, k2p31});
    b.node("Expand", {"one", "shape"}, {"big"}).set_name("expand");
  });
  std::string msg = plan_message(expand);
  CHECK(contains(msg, "node 'expand' (Expand)"));
  CHECK(contains(msg, "overflows 64 bits"));
  auto tile = write_op_model("tile_overflow", [](ModelBuilder& b) {
    b.initializer("four", {2, 2}, {1.f, 2.f, 3.f, 4.f});
    b.initializer_i64("repeats", {2}, {int64_t(1) << 62, int64_t(1) << 62});
    b.node("Tile", {"four", "repeats"}, {"big"}).set_name("tile");
  });
  msg = plan_message(tile);
  CHECK(contains(msg, "node 'tile' (Tile)"));
  CHECK(contains(msg, "overflows 64 bits"));
}

TEST_CASE("hostile: Split sizes and Range lengths that overflow are errors, not wrapped sizes") {
  auto split = write_op_model("split_overflow", [](ModelBuilder& b) {
    b.initializer("three", {3}, {1.f, 2.f, 3.f});
    b.initializer_i64("sizes", {3}, {int64_t(1) << 62, int64_t(1) << 62, int64_t(1) << 62});
    b.node("Split", {"three", "sizes"}, {"big", "b", "c"}).set_name("split");
  });
  std::string msg = plan_message(split);
  CHECK(contains(msg, "node 'split' (Split)"));
  CHECK(contains(msg, "overflows 64 bits"));
  auto range = write_op_model("range_overflow", [](ModelBuilder& b) {
    b.initializer_i64("start", {}, {INT64_MIN});
    b.initializer_i64("limit", {}, {INT64_MAX});
    b.initializer_i64("delta", {}, {1});
    b.node("Range", {"start", "limit", "delta"}, {"big"}).set_name("range");
  });
  msg = plan_message(range);
  CHECK(contains(msg, "node 'range' (Range)"));
  CHECK(contains(msg, "does not fit in 64 bits"));
}

TEST_CASE("hostile: a tensor beyond the single-tensor limit fails at plan time naming the node and the limit") {
  // Pad by 2^40 (4 TiB of float32): refused before the kernel builds its index maps or anything is allocated.
  ModelBuilder b;
  b.input("x", {1, 4}).output("y");
  b.initializer_i64("pads", {4}, {0, 0, 0, int64_t(1) << 40});
  b.node("Pad", {"x", "pads"}, {"y"}).set_name("pad");
  std::string msg = plan_message(b.write(test::temp_dir("pad_huge")));
  CHECK(contains(msg, "node 'pad' (Pad) output 'y'"));
  CHECK(contains(msg, "4.0 TiB"));
  CHECK(contains(msg, "single-tensor limit of 16.0 GiB"));
  CHECK(contains(msg, "--max-memory"));
}

TEST_CASE("hostile: Options::limits caps the arena and single tensors, and raising them lets the model run") {
  ModelBuilder b;
  b.input("x", {-1, 1024}).output("y");
  b.node("Relu", {"x"}, {"r"}).set_name("relu");
  b.node("Neg", {"r"}, {"y"});
  auto path = b.write(test::temp_dir("limits"));
  const std::map<std::string, Tensor> in{{"x", Tensor(DType::Float32, {1024, 1024})}};  // 4 MiB per tensor
  Options tight{"cpu"};
  tight.limits.max_arena_bytes = 6 << 20;
  std::string msg = bad_input_message([&] { Engine::load(path, tight).create_session().run(in); });
  CHECK(contains(msg, "memory limit of 6.0 MiB"));
  Options one_tensor{"cpu"};
  one_tensor.limits.max_tensor_bytes = 1 << 20;
  msg = bad_input_message([&] { Engine::load(path, one_tensor).create_session().run(in); });
  CHECK(contains(msg, "graph input 'x'"));
  CHECK(contains(msg, "single-tensor limit of 1.0 MiB"));
  Options raised{"cpu"};
  raised.limits.max_arena_bytes = raised.limits.max_tensor_bytes = 64 << 20;
  CHECK(Engine::load(path, raised).create_session().run(in).at("y").numel() == 1024 * 1024);
}

TEST_CASE("hostile: AveragePool whose kernel volume is absurd fails the per-op work limit at plan time") {
  ModelBuilder b;
  b.input("x", {1, 1, 4, 4}).output("y");
  auto& pool = b.node("AveragePool", {"x"}, {"y"});
  pool.set_name("pool");
  test::add_ints_attr(pool, "kernel_shape", {k2p31, k2p31});
  pool.add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("auto_pad");
    a.set_type(onnx::AttributeProto::STRING);
    a.set_s("SAME_UPPER");
    return a;
  }());
  std::string msg = plan_message(b.write(test::temp_dir("pool_work")));
  CHECK(contains(msg, "node 'pool' (AveragePool)"));
  CHECK(contains(msg, "per-op limit"));
}

TEST_CASE("hostile: an initializer claiming 2^40 floats with 4 bytes of raw_data fails before allocating") {
  ModelBuilder b;
  b.input("x", {1}).output("y");
  b.node("Add", {"x", "w"}, {"y"});
  auto* t = b.proto().mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(int64_t(1) << 40);  // 4 TiB: allocating first would fail with "cannot allocate", not this message
  t->set_raw_data(std::string(4, '\0'));
  std::string msg = bad_input_message([&] { Engine::load(b.write(test::temp_dir("short_raw")), Options{"cpu"}); });
  CHECK(contains(msg, "initializer 'w'"));
  CHECK(contains(msg, "raw_data holds 4 bytes"));
}

TEST_CASE("hostile: an external-data offset that is no number, or past 2^63, names the tensor and the key") {
  for (const char* offset : {"abc", "1e23", "99999999999999999999999", "-4"}) {
    auto dir = test::temp_dir("bad_offset");
    ModelBuilder b;
    b.external_data("weights.bin");
    b.input("x", {-1, 4}).output("y");
    b.initializer("w", {4}, {1.f, 2.f, 3.f, 4.f});
    b.node("Add", {"x", "w"}, {"y"});
    for (auto& kv : *b.proto().mutable_graph()->mutable_initializer(0)->mutable_external_data())
      if (kv.key() == "offset") kv.set_value(offset);
    std::string msg = bad_input_message([&] { Engine::load(b.write(dir), Options{"cpu"}); });
    CHECK(contains(msg, "initializer 'w'"));
    CHECK(contains(msg, std::string("external data 'offset' is \"") + offset + "\""));
    CHECK(!contains(msg, "stoll"));
  }
}

TEST_CASE("hostile: duplicate graph output names are an invalid model") {
  ModelBuilder b;
  b.input("x", {-1, 3}).output("probs").output("probs");
  b.node("Relu", {"x"}, {"probs"});
  std::string msg = bad_input_message([&] { Engine::load(b.write(test::temp_dir("dup_outputs")), Options{"cpu"}); });
  CHECK(contains(msg, "graph output 'probs' is listed twice"));
}

TEST_CASE("hostile: a FIFO as model, external data or input is refused without opening it") {
  auto dir = test::temp_dir("fifo");
  const std::string fifo = (dir / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string msg = bad_input_message([&] { Engine::load(fifo, Options{"cpu"}); });
  CHECK(contains(msg, "not a regular file (a FIFO)"));
  msg = bad_input_message([&] { read_tensor_file(fifo); });
  CHECK(contains(msg, "not a regular file (a FIFO)"));
  auto path = external_model(dir);
  std::filesystem::remove(dir / "weights.bin");
  REQUIRE(::mkfifo((dir / "weights.bin").c_str(), 0600) == 0);
  msg = bad_input_message([&] { Engine::load(path, Options{"cpu"}); });
  CHECK(contains(msg, "initializer 'w'"));
  CHECK(contains(msg, "not a regular file (a FIFO)"));
}

TEST_CASE("hostile: threads beyond the machine's bound are a usage error naming the bound") {
  Options o{"cpu"};
  o.threads = 100000;
  auto [kind, msg] = error_of([&] { Engine::load(two_input_model().write(test::temp_dir("threads")), o); });
  CHECK(kind == ErrorKind::Usage);
  CHECK(contains(msg, "threads must be from 0 (all cores) to " + std::to_string(max_cpu_threads())));
  CHECK(contains(msg, "got 100000"));
  CHECK_NOTHROW(check_cpu_threads(max_cpu_threads(), "threads"));
}

TEST_CASE("hostile: constant folding leaves a product beyond its work budget to run time, under the per-op limit") {
  // ConstantOfShape [4096, 4096] squared by MatMul: 137 GFLOP that folding ran at load time, past every limit.
  auto path = write_op_model("fold_work", [](ModelBuilder& b) {
    b.initializer_i64("shape", {2}, {4096, 4096});
    b.node("ConstantOfShape", {"shape"}, {"c"}).set_name("cos");
    b.node("MatMul", {"c", "c"}, {"big"}).set_name("mm");
  });
  Options o{"cpu"};
  o.limits.max_op_flops = 1e9;
  std::string msg = plan_message(path, o);
  CHECK(contains(msg, "node 'mm' (MatMul)"));
  CHECK(contains(msg, "per-op limit"));
}

TEST_CASE("hostile: constant folding stops at its memory budget; the rest runs from the arena") {
  // 40 ConstantOfShape [4096, 4096] of 64 MiB each: folded, a 1 KB model held 2.5 GiB of constants beside the arena.
  ModelBuilder b;
  b.input("x", {1}).output("y");
  b.initializer_i64("shape", {2}, {4096, 4096});
  std::string sum = "x";
  for (int i = 0; i < 40; ++i) {
    const std::string c = "c" + std::to_string(i), s = "s" + std::to_string(i);
    b.node("ConstantOfShape", {"shape"}, {c});
    b.node("Add", {sum, c}, {i == 39 ? "y" : s});
    sum = s;
  }
  const std::string text = Engine::load(b.write(test::temp_dir("fold_memory")), Options{"cpu"}).describe({});
  size_t at_run_time = 0;
  for (size_t at = text.find("ConstantOfShape"); at != std::string::npos; at = text.find("ConstantOfShape", at + 1))
    ++at_run_time;
  CHECK(at_run_time >= 36);  // at most 256 MiB folded: 4 of the 40
}

TEST_CASE("hostile: an op without an input it needs at plan time (Tile without repeats) names the node") {
  // Found by fuzz_onnx_model: a flipped field key turned Tile's second input into its doc string; reading the
  // missing input's name threw std::out_of_range instead of an error about the model.
  ModelBuilder b;
  b.input("x", {2, 2}).output("y");
  b.node("Tile", {"x"}, {"y"}).set_name("tile");
  std::string msg = plan_message(b.write(test::temp_dir("tile_no_repeats")));
  CHECK(contains(msg, "node 'tile' (Tile)"));
  CHECK(contains(msg, "(input 1) is required but absent"));
}

TEST_CASE("hostile: a Reshape target whose dims overflow 64 bits when multiplied names the node") {
  // Found by fuzz_onnx_model (UBSan: signed overflow multiplying the target's dims).
  ModelBuilder b;
  b.input("x", {2, 2}).output("y");
  b.initializer_i64("shape", {2}, {int64_t(1) << 56, int64_t(1) << 56});
  b.node("Reshape", {"x", "shape"}, {"y"}).set_name("reshape");
  std::string msg = plan_message(b.write(test::temp_dir("reshape_overflow")));
  CHECK(contains(msg, "node 'reshape' (Reshape)"));
  CHECK(contains(msg, "overflows 64 bits"));
}
