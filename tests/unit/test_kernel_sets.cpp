// Kernel sets with fallback, precision lowering and prepared constants, on a toy backend registered here: it
// serves the sets {"toy-fused", "cpu"} in fp32 and bf16. "toy-fused" has a Relu that declines tensors whose last
// dim is odd; the test op test.F32Only has only a float32 CPU kernel. The planner must fall back set by set,
// record which set served each step and why the others passed, and run float32-only kernels between casts.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <set>

#include "engine/api/session_impl.h"  // Engine::Impl: the engine-wide constant store
#include "engine/backend/backend.h"
#include "engine/core/dtype_dispatch.h"
#include "engine/core/float_convert.h"
#include "engine/loader/onnx_loader.h"
#include "graph_builder.h"

namespace ie {
namespace {

constexpr const char* kToySet = "toy-fused";
constexpr const char* kToyBasic = "toy-basic";
std::atomic<int> g_toy_runs{0};
std::atomic<int> g_toy_prepares{0};

// The CPU backend under another name, so that its kernel sets are the toy's.
class ToyBackend : public Backend {
 public:
  explicit ToyBackend(std::shared_ptr<Backend> cpu, std::string name = "toy")
      : m_cpu(std::move(cpu)), m_name(std::move(name)) {}
  std::string name() const override { return m_name; }
  // Arena bytes start as NaN patterns, so a read of memory no step wrote shows in the results.
  void* allocate(size_t bytes) override {
    void* p = m_cpu->allocate(bytes);
    std::memset(p, 0xFF, bytes);
    return p;
  }
  void deallocate(void* p) override { m_cpu->deallocate(p); }
  const void* constant_data(const Tensor& t) override { return m_cpu->constant_data(t); }
  void copy_in(void* dst, const void* src, size_t bytes) override { m_cpu->copy_in(dst, src, bytes); }
  void copy_out(void* dst, const void* src, size_t bytes) override { m_cpu->copy_out(dst, src, bytes); }
  void copy_device(void* dst, const void* src, size_t bytes) override { m_cpu->copy_device(dst, src, bytes); }

 private:
  std::shared_ptr<Backend> m_cpu;
  std::string m_name;
};

template <class T>
float as_float(T v) {
  return static_cast<float>(v);
}

std::unique_ptr<Kernel> make_toy_relu(const KernelInit& init) {
  const TensorInfo& x = init.inputs[0];
  if (x.shape.empty() || x.shape.back() % 2)
    return init.decline("last dim ", x.shape.empty() ? 0 : x.shape.back(), " is odd (toy rows are pairs)");
  if (x.dtype != DType::Float32 && x.dtype != DType::BFloat16)
    return init.decline("element type ", dtype_name(x.dtype), " (toy runs float32 and bfloat16)");
  // The prepare hook: a constant made once per engine, whatever the number of sessions.
  const float* zero = static_cast<const float*>(init.prepared("zero", [] {
    ++g_toy_prepares;
    return Tensor(DType::Float32, {1});
  }));
  return dispatch_float(x.dtype, "toy Relu", [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    return make_kernel([zero](KernelContext& ctx) {
      ++g_toy_runs;
      const T* in = ctx.inputs[0].as<const T>();
      T* out = ctx.outputs[0].as<T>();
      for (int64_t i = 0; i < ctx.inputs[0].numel(); ++i) out[i] = as_float(in[i]) > *zero ? in[i] : T(*zero);
    });
  });
}

void infer_same(InferContext& ctx) { ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape); }

// y = 2x, and only in float32.
std::unique_ptr<Kernel> make_f32_only(const KernelInit& init) {
  if (init.inputs[0].dtype != DType::Float32)
    return init.decline("takes float32 only, got ", dtype_name(init.inputs[0].dtype));
  return make_kernel([](KernelContext& ctx) {
    for (int64_t i = 0; i < ctx.inputs[0].numel(); ++i)
      ctx.outputs[0].as<float>()[i] = 2.f * ctx.inputs[0].as<const float>()[i];
  });
}

}  // namespace

IE_REGISTER_OPS(toy_kernel_set) {
  register_backend(
      "toy", BackendTraits{{kToySet, kernel_set::kCpu}, {Precision::fp32, Precision::bf16}},
      [](const Options&, std::shared_ptr<void>*) {
        return std::make_shared<ToyBackend>(make_backend(kernel_set::kCpu, Options{}));
      },
      nullptr);
  OpRegistry::get().add_kernel("", "Relu", kToySet, make_toy_relu);
  OpRegistry::get().add(OpDef("test", "F32Only", infer_same));
  OpRegistry::get().add_kernel("test", "F32Only", kernel_set::kCpu, make_f32_only);

  // Backend "toy-strict": {"toy-fused", "toy-basic"}. toy-fused runs ie.FusedConv for even input widths only;
  // toy-basic has Conv, Relu and MaxPool (the CPU's kernels) but no FusedConv, so an odd width leaves the fused
  // node with no kernel at all: it must lower as the nodes it replaced.
  register_backend(
      "toy-strict", BackendTraits{{kToySet, kToyBasic}, {Precision::fp32}},
      [](const Options&, std::shared_ptr<void>*) {
        return std::make_shared<ToyBackend>(make_backend(kernel_set::kCpu, Options{}), "toy-strict");
      },
      nullptr);
  OpRegistry::get().add_kernel("ie", "FusedConv", kToySet, [](const KernelInit& init) -> std::unique_ptr<Kernel> {
    if (init.inputs[0].shape.back() % 2) return init.decline("input width ", init.inputs[0].shape.back(), " is odd");
    return (*OpRegistry::get().kernel("ie", "FusedConv", kernel_set::kCpu))(init);
  });
  for (const char* op : {"Conv", "Relu", "MaxPool"})
    OpRegistry::get().add_kernel("", op, kToyBasic, [op](const KernelInit& init) {
      return (*OpRegistry::get().kernel("", op, kernel_set::kCpu))(init);
    });
}

namespace {

Graph relu_chain() {
  test::GraphBuilder b;
  b.input("x", {-1, -1});
  b.node("Relu", {"x"}, {"r1"});
  b.node("Neg", {"r1"}, {"n"});
  b.node("Relu", {"n"}, {"y"});
  b.output("y");
  return b.build();
}

Options toy_options(Precision precision = Precision::fp32) {
  Options o;
  o.backend = "toy";
  o.precision = precision;
  return o;
}

Tensor random_matrix(int64_t rows, int64_t cols, unsigned seed) {
  Tensor t(DType::Float32, {rows, cols});
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data_as<float>()[i] = static_cast<float>(s >> 8) / 8388608.f - 1.f;
  }
  return t;
}

std::unique_ptr<Plan> plan_on(const std::string& backend, const Graph& g, const Shape& x, PlanOptions options = {}) {
  return build_plan(g, {{"x", x}}, make_backend(backend, Options{}), options);
}

}  // namespace

TEST_CASE("kernel sets: the first set that accepts a node serves it; each step records its set") {
  auto plan = plan_on("toy", relu_chain(), {3, 4});
  REQUIRE(plan->steps.size() == 3);
  CHECK(plan->kernel_sets == std::vector<std::string>{kToySet, kernel_set::kCpu});
  CHECK(plan->steps[0].kernel_set == kToySet);
  CHECK(plan->steps[0].declined.empty());
  CHECK(plan->steps[1].kernel_set == kernel_set::kCpu);  // Neg: toy-fused has no kernel for it
  CHECK(plan->steps[1].declined == std::vector<std::string>{std::string(kToySet) + ": no kernel for Neg"});
  CHECK(plan->steps[2].kernel_set == kToySet);
  Tensor x = random_matrix(3, 4, 1);
  const int before = g_toy_runs;
  auto got = test::run_plan(*plan, {{"x", x}});
  CHECK(g_toy_runs - before == 2);
  auto want = test::run_plan(*test::plan_cpu(relu_chain(), {{"x", {3, 4}}}), {{"x", x}});
  CHECK(test::max_abs_diff(got[0], want[0]) == 0);
}

TEST_CASE("kernel sets: a factory that declines passes the node on, and inspect says why") {
  auto plan = plan_on("toy", relu_chain(), {2, 5});
  for (auto& step : plan->steps) CHECK(step.kernel_set == kernel_set::kCpu);
  CHECK(plan->steps[0].declined ==
        std::vector<std::string>{std::string(kToySet) + ": last dim 5 is odd (toy rows are pairs)"});
  Tensor x = random_matrix(2, 5, 2);
  const int before = g_toy_runs;
  auto got = test::run_plan(*plan, {{"x", x}});
  CHECK(g_toy_runs == before);
  auto want = test::run_plan(*test::plan_cpu(relu_chain(), {{"x", {2, 5}}}), {{"x", x}});
  CHECK(test::max_abs_diff(got[0], want[0]) == 0);

  Engine engine = Engine::from_graph(relu_chain(), toy_options());
  std::string text = engine.describe({{"x", {2, 5}}});
  CHECK(text.find("kernel sets: toy-fused x0 cpu x3; 3 steps fell back") != std::string::npos);
  CHECK(text.find("fallback: toy-fused: last dim 5 is odd (toy rows are pairs)") != std::string::npos);
  CHECK(text.find("fallback: toy-fused: no kernel for Neg") != std::string::npos);
  std::string even = engine.describe({{"x", {2, 6}}});
  CHECK(even.find("kernel sets: toy-fused x2 cpu x1; 1 steps fell back") != std::string::npos);
}

TEST_CASE("kernel sets: a node no set accepts is an error naming it and every set's reason") {
  PlanOptions only_toy;
  only_toy.kernel_sets = {kToySet};
  try {
    plan_on("toy", relu_chain(), {2, 5}, only_toy);
    FAIL("planning should fail");
  } catch (const Error& e) {
    std::string msg = e.what();
    CHECK(msg.find("Relu") != std::string::npos);
    CHECK(msg.find("toy-fused: last dim 5 is odd") != std::string::npos);
  }
}

TEST_CASE("kernel sets: a fused node that no set runs lowers as the nodes it replaced") {
  test::GraphBuilder b;
  b.input("x", {-1, 3, 9, -1});
  Tensor w = random_matrix(4, 27, 6).reshaped({4, 3, 3, 3});
  b.constant("w", w);
  b.constant("bias", test::f32_tensor({4}, {0.1f, -0.2f, 0.3f, 0.f}));
  Attributes pool;
  pool.set_ints("kernel_shape", {2, 2});
  pool.set_ints("strides", {2, 2});
  b.node("Conv", {"x", "w", "bias"}, {"c"});
  b.node("Relu", {"c"}, {"r"});
  b.node("MaxPool", {"r"}, {"y"}, pool);
  b.output("y");
  Graph g = b.build();
  for (int64_t width : {10, 11}) {
    CAPTURE(width);
    auto plan = build_plan(g, {{"x", {2, 3, 9, width}}}, make_backend("toy-strict", Options{}), PlanOptions{});
    std::vector<std::string> ops;
    for (auto& step : plan->steps) ops.push_back(step.node.op_type);
    Tensor x(DType::Float32, {2, 3, 9, width});
    for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = static_cast<float>((i * 37) % 101) / 101.f - 0.3f;
    auto got = test::run_plan(*plan, {{"x", x}});
    auto want = test::run_plan(*test::plan_cpu(g, {{"x", {2, 3, 9, width}}}, {"all"}), {{"x", x}});
    CHECK(test::max_abs_diff(got[0], want[0]) <= 1e-5);
    if (width % 2 == 0) {
      CHECK(ops == std::vector<std::string>{"FusedConv"});
      CHECK(plan->steps[0].kernel_set == kToySet);
      continue;
    }
    CHECK(ops == std::vector<std::string>{"Conv", "Relu", "MaxPool"});
    CHECK(plan->steps[0].kernel_set == kToyBasic);
    const auto& why = plan->steps[0].declined;  // the part's own reasons, then the fused node's
    CHECK(std::find(why.begin(), why.end(), "ie.FusedConv toy-fused: input width 11 is odd (runs unfused)") !=
          why.end());
  }
}

TEST_CASE("kernel sets: the profiler reports the set of each step") {
  Engine engine = Engine::from_graph(relu_chain(), toy_options());
  Session session = engine.create_session();
  ProfileReport report = session.profile({{"x", random_matrix(4, 6, 3)}}, 1, 2);
  REQUIRE(report.steps.size() == 3);
  CHECK(report.steps[0].kernel_set == kToySet);
  CHECK(report.steps[1].kernel_set == kernel_set::kCpu);
}

TEST_CASE("precision: backends declare their modes; others are refused by name") {
  Options cpu;
  cpu.backend = "cpu";
  cpu.precision = Precision::bf16;
  CHECK_THROWS_WITH_AS(Engine::from_graph(relu_chain(), cpu), doctest::Contains("applies to GPU backends"), Error);
  CHECK_THROWS_WITH_AS(
      Engine::from_graph(relu_chain(), toy_options(Precision::fp16)),
      doctest::Contains("precision 'fp16' is not implemented by the toy backend (it implements fp32, bf16)"), Error);
  CHECK(precision_from_name("bf16") == Precision::bf16);
  CHECK(storage_dtype(Precision::fp16) == DType::Float16);
  CHECK(storage_dtype(Precision::tf32) == DType::Float32);
  CHECK_THROWS_WITH_AS(precision_from_name("int8"), doctest::Contains("expected fp32, tf32, fp16 or bf16"), Error);
}

namespace {

// x -> Relu -> Mul(w) -> test.F32Only -> Relu -> y: toy Relu in bf16, Mul on the cpu set in bf16, F32Only wide.
Graph mixed_graph(int64_t cols) {
  test::GraphBuilder b;
  b.input("x", {-1, cols});
  std::vector<float> w(static_cast<size_t>(cols));
  for (int64_t i = 0; i < cols; ++i) w[i] = 0.5f + 0.125f * static_cast<float>(i);
  b.constant("w", test::f32_tensor({cols}, w));
  b.node("Relu", {"x"}, {"r"});
  b.node("Mul", {"r", "w"}, {"m"});
  b.node("F32Only", {"m"}, {"f"}).domain = "test";
  b.node("Relu", {"f"}, {"y"});
  b.output("y");
  return b.build();
}

}  // namespace

TEST_CASE(
    "precision: bf16 stores activations and weights in bfloat16, casts at the edges and around float32-only kernels") {
  Engine engine = Engine::from_graph(mixed_graph(6), toy_options(Precision::bf16));
  std::string text = engine.describe({{"x", {5, 6}}});
  CHECK(text.find("precision: bf16 (4 casts placed)") != std::string::npos);
  CHECK(text.find("fallback: cpu: takes float32 only, got bfloat16 (in bfloat16; runs in float32)") !=
        std::string::npos);

  Session session = engine.create_session();
  Tensor x = random_matrix(5, 6, 4);
  Tensor y = session.run({{"x", x}}).at("y");
  REQUIRE(y.dtype() == DType::Float32);
  std::vector<Tensor> want = test::run_engine(mixed_graph(6), {{"x", x}});
  // Three bf16 roundings (x, w and each stored activation): well inside 2e-2 relative.
  for (int64_t i = 0; i < y.numel(); ++i) {
    const float a = y.data_as<float>()[i], b = want[0].data_as<float>()[i];
    CHECK(std::abs(a - b) <= 2e-2f * std::abs(b) + 1e-6f);
  }

  PlanOptions bf16;
  bf16.precision = Precision::bf16;
  auto plan = plan_on("toy", mixed_graph(6), {5, 6}, bf16);
  std::vector<std::string> sets, ops;
  for (auto& step : plan->steps) {
    sets.push_back(step.kernel_set);
    ops.push_back(step.node.op_type);
  }
  CHECK(ops == std::vector<std::string>{"Cast", "Relu", "Mul", "Cast", "F32Only", "Cast", "Relu", "Cast"});
  CHECK(sets == std::vector<std::string>{"cpu", "toy-fused", "cpu", "cpu", "cpu", "cpu", "toy-fused", "cpu"});
  const Slot& w = plan->slots[plan->slot_of.at("w")];
  CHECK(w.info.dtype == DType::BFloat16);
}

TEST_CASE("precision: weights convert and kernels prepare once per engine, not once per session") {
  Engine engine = Engine::from_graph(mixed_graph(4), toy_options(Precision::bf16));
  const int prepares = g_toy_prepares;
  Session first = engine.create_session();
  Tensor x = random_matrix(3, 4, 5);
  Tensor y1 = first.run({{"x", x}}).at("y");
  const size_t stored = engine.impl()->plan_options.store->size();
  CHECK(stored == 3);  // w in bfloat16, and the toy Relus' "zero", one per node
  CHECK(g_toy_prepares - prepares == 2);
  Session second = engine.create_session();
  Tensor y2 = second.run({{"x", x}}).at("y");
  CHECK(engine.impl()->plan_options.store->size() == stored);
  CHECK(g_toy_prepares - prepares == 2);
  CHECK(test::max_abs_diff(y1, y2) == 0);
}

}  // namespace ie

namespace ie {

// Every CPU kernel the two models use, in bfloat16 (computed in float, stored in bfloat16), through the toy
// backend's cpu set: the bf16 gate of the precision modes, relative L2 <= 1e-2 against the CPU's fp32.
TEST_CASE("precision: both models in bf16 on the CPU kernels meet the bf16 gate") {
  for (const auto& model : {std::pair{"convnet.onnx", Shape{5, 1, 86, 86}}, std::pair{"ssa.onnx", Shape{9, 320}},
                            std::pair{"ssa_dynamo.onnx", Shape{9, 320}}}) {
    const char* file = model.first;
    const Shape& shape = model.second;
    CAPTURE(file);
    const std::string path = std::string(IE_SOURCE_DIR) + "/weights/" + file;
    Tensor x = random_matrix(shape[0], numel_range(shape, 1, shape.size()), 8).reshaped(shape);
    for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = 0.5f * (x.data_as<float>()[i] + 1.f);
    Options cpu;
    cpu.backend = kernel_set::kCpu;
    auto want = Engine::load(path, cpu).create_session().run_ordered({{"x", x}});
    auto got = Engine::load(path, toy_options(Precision::bf16)).create_session().run_ordered({{"x", x}});
    REQUIRE(got.size() == want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      CAPTURE(k);
      CHECK(test::rel_l2(got[k], want[k]) <= 1e-2);
    }
  }
}

}  // namespace ie

namespace ie {
namespace {

constexpr const char* kWideSet = "toy-wide-f32";
constexpr const char* kWideUnfusedSet = "toy-wide-f32-unfused";  // the same, declining every fused (ie.*) op

// Data movement, which the CUDA reference set runs in any type; every other op is float32-only in kWideSet.
bool moves_data(const std::string& op) {
  static const std::set<std::string> kMovers = {"Cast",   "Reshape",   "Slice",   "Concat",  "Transpose", "Gather",
                                                "Expand", "Unsqueeze", "Squeeze", "Flatten", "Identity",  "Split"};
  return kMovers.count(op) != 0;
}

bool is_16_bit_float(const TensorInfo& t) { return t.dtype == DType::BFloat16 || t.dtype == DType::Float16; }

}  // namespace

// Backend "toy-wide": one set, kWideSet, holding every CPU kernel but declining 16-bit floats outside data
// movement, like a set of float32-only library kernels. In fp16 and bf16 every compute node then runs in float32
// between casts, fused nodes included, and graph outputs leave through casts. "toy-wide-unfused" also declines
// every fused op at plan time, so fused nodes lower as the nodes they replaced (graph outputs among them).
IE_REGISTER_OPS(toy_wide_kernel_set) {
  for (auto [name, set] : {std::pair{"toy-wide", kWideSet}, std::pair{"toy-wide-unfused", kWideUnfusedSet}})
    register_backend(
        name, BackendTraits{{set}, {Precision::fp32, Precision::fp16, Precision::bf16}},
        [name = std::string(name)](const Options&, std::shared_ptr<void>*) {
          return std::make_shared<ToyBackend>(make_backend(kernel_set::kCpu, Options{}), name);
        },
        nullptr);
}

TEST_CASE("precision: float32-only kernels run both models in fp16 and bf16 between casts, within the gates") {
  // Registered here, after every op of the library: one wrapper per CPU kernel.
  static const bool registered = [] {
    for (const std::string& full : OpRegistry::get().op_names()) {
      const size_t dot = full.find('.');
      const std::string domain = dot == std::string::npos ? "" : full.substr(0, dot);
      const std::string op = dot == std::string::npos ? full : full.substr(dot + 1);
      const KernelFactory* cpu = OpRegistry::get().kernel(domain, op, kernel_set::kCpu);
      if (!cpu || OpRegistry::get().kernel(domain, op, kWideSet)) continue;
      KernelFactory make = *cpu;
      const bool mover = moves_data(op), fused = domain == "ie";
      auto wrap = [make, mover](bool decline_fused) {
        return [make, mover, decline_fused](const KernelInit& init) -> std::unique_ptr<Kernel> {
          if (decline_fused) return init.decline("no fused kernels");
          if (!mover)
            for (const auto* list : {&init.inputs, &init.outputs})
              for (const TensorInfo& t : *list)
                if (is_16_bit_float(t)) return init.decline("float32 only");
          return make(init);
        };
      };
      OpRegistry::get().add_kernel(domain, op, kWideSet, wrap(false));
      OpRegistry::get().add_kernel(domain, op, kWideUnfusedSet, wrap(fused));
    }
    return true;
  }();
  REQUIRE(registered);
  for (const auto& model : {std::pair{"convnet.onnx", Shape{3, 1, 86, 86}}, std::pair{"ssa.onnx", Shape{7, 320}},
                            std::pair{"ssa_dynamo.onnx", Shape{7, 320}}}) {
    const char* file = model.first;
    const Shape& shape = model.second;
    const std::string path = std::string(IE_SOURCE_DIR) + "/weights/" + file;
    Tensor x = random_matrix(shape[0], numel_range(shape, 1, shape.size()), 9).reshaped(shape);
    for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = 0.5f * (x.data_as<float>()[i] + 1.f);
    Options cpu;
    cpu.backend = kernel_set::kCpu;
    auto want = Engine::load(path, cpu).create_session().run_ordered({{"x", x}});
    for (const auto& backend_and_precision :
         {std::pair{"toy-wide", Precision::fp16}, std::pair{"toy-wide", Precision::bf16},
          std::pair{"toy-wide-unfused", Precision::fp16}, std::pair{"toy-wide-unfused", Precision::bf16}}) {
      const char* backend = backend_and_precision.first;
      const Precision p = backend_and_precision.second;
      CAPTURE(file);
      CAPTURE(backend);
      CAPTURE(precision_name(p));
      Options wide;
      wide.backend = backend;
      wide.precision = p;
      Engine engine = Engine::from_graph(load_onnx(path), wide);
      auto got = engine.create_session().run_ordered({{"x", x}});
      REQUIRE(got.size() == want.size());
      for (size_t k = 0; k < got.size(); ++k) {
        CAPTURE(k);
        CHECK(test::rel_l2(got[k], want[k]) <= 1e-2);
      }
      // Fused nodes stay fused and run wide where a set runs them in float32; else they fall apart.
      const std::string text = engine.describe({{"x", shape}});
      CHECK((text.find("  ie.Linear    ") != std::string::npos) == (std::string(backend) == "toy-wide"));
    }
  }
}

}  // namespace ie
