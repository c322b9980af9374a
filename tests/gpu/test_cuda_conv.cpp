// cuda-reference Conv and ie.FusedConv (cuDNN) against the CPU backend; the Conv -> Relu -> MaxPool fusion on a
// backend that cannot pool in the conv's epilogue.
#include <cmath>

#include "cuda_compare.h"
#include "engine/backend/backend.h"
#include "engine/core/shape.h"
#include "engine/executor/executor.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

// fp32 (TF32 off, FMA math): only the summation order differs from the CPU's im2col + GEMM.
constexpr Tolerance kFp32Conv{1e-5, 1e-4};
// TF32 tensor-op math: 10-bit mantissa operands; weights scaled by 1/sqrt(fan_in) keep outputs O(1).
constexpr Tolerance kTf32Conv{1e-2, 1e-2};

struct ConvCase {
  Shape x, w;
  bool bias = true;
  std::vector<int64_t> pads, strides, dilations;
  int64_t group = 1;
  std::string auto_pad;
};

std::string describe(const ConvCase& c, const std::string& op) {
  std::string s = op + " X=" + shape_to_string(c.x) + " W=" + shape_to_string(c.w) + (c.bias ? " +bias" : "");
  if (!c.pads.empty()) s += " pads=" + shape_to_string(c.pads);
  if (!c.strides.empty()) s += " strides=" + shape_to_string(c.strides);
  if (!c.dilations.empty()) s += " dilations=" + shape_to_string(c.dilations);
  if (c.group != 1) s += " group=" + std::to_string(c.group);
  if (!c.auto_pad.empty()) s += " auto_pad=" + c.auto_pad;
  return s;
}

void check_conv(const ConvCase& c, const std::string& op = "Conv", Precision precision = Precision::fp32,
                Tolerance tol = kFp32Conv) {
  const std::string what = describe(c, op);
  Attributes a;
  if (!c.pads.empty()) a.set_ints("pads", c.pads);
  if (!c.strides.empty()) a.set_ints("strides", c.strides);
  if (!c.dilations.empty()) a.set_ints("dilations", c.dilations);
  if (!c.auto_pad.empty()) a.set_string("auto_pad", c.auto_pad);
  a.set_int("group", c.group);
  if (op == "FusedConv") {
    a.set_string("activation", "Relu");
    a.set_string("pool", "");
  }
  int64_t fan_in = 1;
  for (size_t i = 1; i < c.w.size(); ++i) fan_in *= c.w[i];
  const float r = 1.f / std::sqrt(static_cast<float>(fan_in));
  std::vector<Tensor> in = {random_uniform(c.x, seed_of(what, 1), 0.f, 1.f),
                            random_uniform(c.w, seed_of(what, 2), -r, r)};
  std::vector<std::string> names = {"x", "w"};
  if (c.bias) {
    in.push_back(random_uniform({c.w[0]}, seed_of(what, 3), -0.5f, 0.5f));
    names.push_back("b");
  }
  check_matches_cpu(what, make_node(op, names, {"y"}, a, op == "FusedConv" ? "ie" : ""), in, {false, true, true}, tol,
                    17, precision);
}

TEST_CASE("cuda Conv: the ConvNet's layers at batch 1, 3 and 257") {
  IE_REQUIRE_GPU();
  for (int64_t b : {1, 3, 257}) {
    check_conv({{b, 1, 86, 86}, {4, 1, 7, 7}});
    check_conv({{b, 4, 40, 40}, {16, 4, 7, 7}});
    check_conv({{b, 1, 86, 86}, {4, 1, 7, 7}}, "FusedConv");
    check_conv({{b, 4, 40, 40}, {16, 4, 7, 7}}, "FusedConv");
  }
}

TEST_CASE("cuda Conv: strides, pads, dilations, groups, 1-D") {
  IE_REQUIRE_GPU();
  for (int64_t b : {1, 3}) {
    check_conv({{b, 3, 17, 19}, {5, 3, 3, 3}, true, {1, 1, 1, 1}, {2, 2}});
    check_conv({{b, 3, 17, 19}, {5, 3, 3, 5}, false, {1, 2, 2, 0}, {1, 2}});  // asymmetric pads
    check_conv({{b, 6, 23, 21}, {9, 2, 3, 3}, true, {2, 2, 2, 2}, {1, 1}, {2, 2}, 3});
    check_conv({{b, 4, 15, 15}, {4, 1, 5, 5}, true, {2, 2, 2, 2}, {}, {}, 4});  // depthwise
    check_conv({{b, 5, 12, 13}, {7, 5, 4, 4}, true, {}, {3, 2}, {}, 1, "SAME_UPPER"});
    check_conv({{b, 5, 12, 13}, {7, 5, 4, 2}, false, {}, {2, 3}, {}, 1, "SAME_LOWER"});
    check_conv({{b, 3, 31}, {6, 3, 5}, true, {2, 1}, {2}});  // 1-D
    check_conv({{b, 8, 9, 11}, {12, 8, 1, 1}});              // pointwise
    check_conv({{b, 6, 23, 21}, {9, 2, 3, 3}, true, {1, 0, 2, 1}, {2, 1}, {1, 2}, 3}, "FusedConv");
    check_conv({{b, 3, 17, 19}, {5, 3, 3, 3}, false, {1, 1, 1, 1}}, "FusedConv");  // Relu without bias
  }
}

TEST_CASE("cuda Conv in tf32 (tolerance 1e-2)") {
  IE_REQUIRE_GPU();
  check_conv({{3, 16, 20, 20}, {32, 16, 3, 3}, true, {1, 1, 1, 1}}, "Conv", Precision::tf32, kTf32Conv);
  check_conv({{3, 64, 12, 12}, {16, 64, 4, 4}}, "FusedConv", Precision::tf32, kTf32Conv);  // K = 1024
}

TEST_CASE("cuda FusedConv rejects a fused pool, so Conv -> Relu -> MaxPool plans as FusedConv then MaxPool") {
  Attributes fa;
  fa.set_string("activation", "Relu");
  fa.set_string("pool", "MaxPool");
  CHECK_FALSE(OpRegistry::get().supports(make_node("FusedConv", {"x", "w", "b"}, {"y"}, fa, "ie"), "cuda-reference"));
  fa.set_string("pool", "");
  CHECK(OpRegistry::get().supports(make_node("FusedConv", {"x", "w", "b"}, {"y"}, fa, "ie"), "cuda-reference"));
  IE_REQUIRE_GPU();

  Graph g;
  g.opset = 17;
  g.source = "conv relu pool test graph";
  Attributes pool;
  pool.set_ints("kernel_shape", {4, 4});
  pool.set_ints("strides", {4, 4});
  g.nodes = {make_node("Conv", {"x", "w", "b"}, {"c"}), make_node("Relu", {"c"}, {"r"}),
             make_node("MaxPool", {"r"}, {"y"}, pool)};
  for (size_t i = 0; i < g.nodes.size(); ++i) g.nodes[i].name = "n" + std::to_string(i);
  g.constants["w"] = random_uniform({16, 4, 7, 7}, 11, -0.07f, 0.07f);
  g.constants["b"] = random_uniform({16}, 12, -0.5f, 0.5f);
  TensorDecl in;
  in.name = "x";
  in.dtype = DType::Float32;
  in.dims = {3, 4, 40, 40};
  in.dim_names.assign(4, "");
  g.inputs = {in};
  TensorDecl out;
  out.name = "y";
  out.has_shape = false;
  g.outputs = {out};
  const Tensor x = random_uniform({3, 4, 40, 40}, 13, 0.f, 1.f);

  auto run = [&](const std::string& backend, std::vector<std::string>* ops) {
    Options opts;
    PlanOptions popts;
    auto plan = build_plan(g, {{"x", x.shape()}}, make_backend(backend, opts), popts);
    for (auto& step : plan->steps) ops->push_back(step.node.domain + "." + step.node.op_type);
    load_inputs(*plan, {{"x", x}});
    run_steps(*plan, nullptr);
    return fetch_outputs(*plan);
  };
  std::vector<std::string> cpu_ops, gpu_ops;
  auto want = run("cpu", &cpu_ops);
  auto got = run("cuda-reference", &gpu_ops);
  const std::vector<std::string> cpu_expected = {"ie.FusedConv"}, gpu_expected = {"ie.FusedConv", ".MaxPool"};
  CHECK(cpu_ops == cpu_expected);
  REQUIRE(gpu_ops == gpu_expected);
  REQUIRE(got.size() == 1);
  CHECK(tolerance_ratio(got[0], want[0], kFp32Conv.atol, kFp32Conv.rtol) <= 1.0);
}

}  // namespace
}  // namespace ie::test
