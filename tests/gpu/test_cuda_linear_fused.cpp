// The fused set's ie.Linear (WMMA in the fp16 and bf16 modes, split-operand Tensor Core products or FFMA in strict
// fp32) against the CPU backend: MatMul +
// Add and Gemm (transB) with and without an activation, on row counts 1, 7, 8 (the small-rows kernel), 9 and 5121 (a
// partial row tile) and K x N from the SSA's (32x64, 64x128, 128x64, 640x32, 32x640) to odd ones (K not a multiple of
// 8: element-wise staging; N not a multiple of the column block), checking that the fused set served the step.
#include <cmath>
#include <tuple>

#include "cuda_compare.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

// Against the CPU's fp32, A uniform in [-1, 1), W in +-1/sqrt(K), bias in [-0.3, 0.3): outputs are O(1). The
// modes store A, W and Y in 16 bits (fp16: 11 significant bits, bf16: 8) and accumulate in float.
Tolerance tolerance_of(Precision p) { return p == Precision::fp16 ? Tolerance{5e-3, 5e-3} : Tolerance{2e-2, 2e-2}; }

struct LinearCase {
  int64_t rows, k, n;
  const char* act;  // "" for none
  bool gemm;        // Gemm with transB = 1 (W as [N, K]) instead of MatMul + Add
};

Graph linear_graph(const LinearCase& c, const std::string& what) {
  Graph g;
  g.opset = 17;
  g.source = "linear test graph";
  const float r = 1.f / std::sqrt(static_cast<float>(c.k));
  const std::string product = c.act[0] ? "h" : "y";
  if (c.gemm) {
    Attributes a;
    a.set_int("transB", 1);
    g.nodes.push_back(make_node("Gemm", {"x", "w", "b"}, {product}, a));
    g.constants = {{"w", random_uniform({c.n, c.k}, seed_of(what, 2), -r, r)}};
  } else {
    g.nodes.push_back(make_node("MatMul", {"x", "w"}, {"m"}));
    g.nodes.push_back(make_node("Add", {"m", "b"}, {product}));
    g.constants = {{"w", random_uniform({c.k, c.n}, seed_of(what, 2), -r, r)}};
  }
  g.constants["b"] = random_uniform({c.n}, seed_of(what, 3), -0.3f, 0.3f);
  if (c.act[0]) g.nodes.push_back(make_node(c.act, {"h"}, {"y"}));
  for (size_t i = 0; i < g.nodes.size(); ++i) g.nodes[i].name = "n" + std::to_string(i);
  g.inputs = {TensorDecl{"x", DType::Float32, {c.rows, c.k}, {"", ""}}};
  g.outputs = {inferred_output("y")};
  return g;
}

}  // namespace

TEST_CASE("cuda Linear (fused set) matches the CPU in fp16 and bf16 on odd shapes") {
  IE_REQUIRE_GPU();
  const std::vector<LinearCase> cases = {
      {5121, 32, 64, "", false},
      {7, 64, 64, "", true},
      {1, 64, 128, "Gelu", false},
      {5121, 128, 64, "", false},
      {7, 640, 32, "", true},
      {7, 32, 640, "", true},
      {7, 40, 20, "Relu", false},
      {5121, 33, 70, "Gelu", false},
      {1, 1000, 96, "Tanh", false},
      {64, 16, 1, "", false},
      // at most 8 rows take the small-rows kernel: the conv net's fc3 at batch 1 and 8, the first tiled count
      {1, 1024, 32, "Relu", true},
      {8, 1024, 32, "Relu", true},
      {9, 1024, 32, "Relu", true},
      {3, 7, 100, "", false},
  };
  for (Precision p : {Precision::fp16, Precision::bf16})
    for (const LinearCase& c : cases) {
      const std::string what = std::string(c.gemm ? "Gemm" : "MatMul+Add") + " " + std::to_string(c.rows) + "x" +
                               std::to_string(c.k) + " -> " + std::to_string(c.n) + (c.act[0] ? " + " : "") + c.act;
      INFO(what, " in ", precision_name(p));
      const Graph g = linear_graph(c, what);
      const Tensor x = random_uniform({c.rows, c.k}, seed_of(what, 1), -1.f, 1.f);
      CHECK(kernel_set_serving(g, {{"x", x.shape()}}, p, "Linear") == kernel_set::kCuda);
      check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", x}}),
                          run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), tolerance_of(p));
    }
}

TEST_CASE("cuda Linear in strict fp32: the FFMA kernel on odd shapes; tf32 declines to the reference set") {
  IE_REQUIRE_GPU();
  const ScopedEnv ffma("IE_LINEAR_FP32", "ffma");  // every shape it supports, whatever the rows and activation
  // Rows 1, 7 and 129 (a partial 128-row tile), 5121; K and N from the SSA's and the conv net's products to odd
  // multiples of 4 (K not a multiple of the 16-deep k-step, N not of the 64-column block).
  const std::vector<LinearCase> cases = {
      {5121, 32, 64, "", false},      {7, 64, 64, "", true},         {1, 64, 128, "Gelu", false},
      {129, 128, 64, "", false},      {7, 640, 32, "", true},        {129, 32, 640, "", true},
      {7, 12, 20, "Relu", false},     {5121, 36, 68, "Gelu", false}, {1, 1024, 32, "Relu", true},
      {129, 1000, 96, "Tanh", false}, {9, 4, 4, "Sigmoid", false},
  };
  for (const LinearCase& c : cases) {
    const std::string what = std::string(c.gemm ? "Gemm" : "MatMul+Add") + " fp32 " + std::to_string(c.rows) + "x" +
                             std::to_string(c.k) + " -> " + std::to_string(c.n) + (c.act[0] ? " + " : "") + c.act;
    INFO(what);
    const Graph g = linear_graph(c, what);
    const Tensor x = random_uniform({c.rows, c.k}, seed_of(what, 1), -1.f, 1.f);
    CHECK(kernel_set_serving(g, {{"x", x.shape()}}, Precision::fp32, "Linear") == kernel_set::kCuda);
    check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::fp32}, g, {{"x", x}}),
                        run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), Tolerance{1e-5, 1e-4});
  }
  // K or N not a multiple of 4, and every tf32 product, run on the reference set's cuBLASLt.
  for (const char* act : {"", "Relu", "Gelu", "Sigmoid"})
    for (const LinearCase& c : {LinearCase{37, 64, 10, act, false}, LinearCase{37, 30, 48, act, true}}) {
      const std::string what =
          std::string("fp32 / tf32 linear ") + std::to_string(c.k) + " -> " + std::to_string(c.n) + " + " + act;
      INFO(what);
      const Graph g = linear_graph(c, what);
      const Tensor x = random_uniform({c.rows, c.k}, seed_of(what, 1), -1.f, 1.f);
      for (Precision p : {Precision::fp32, Precision::tf32}) {
        CHECK(kernel_set_serving(g, {{"x", x.shape()}}, p, "Linear") == kernel_set::kCudaReference);
        const Tolerance tol = p == Precision::fp32 ? Tolerance{1e-5, 1e-4} : Tolerance{5e-3, 5e-3};
        check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", x}}),
                            run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), tol);
      }
    }
}

TEST_CASE("cuda Linear in strict fp32 takes the FFMA kernel where it was measured faster than cuBLASLt") {
  IE_REQUIRE_GPU();
  // GELU (a second pass on cuBLASLt) from 32768 rows: FFMA; no activation, or fewer rows: cuBLASLt.
  struct Pick {
    LinearCase c;
    const char* set;
  };
  for (const Pick& pick : {Pick{{32768, 16, 32, "Gelu", false}, kernel_set::kCuda},
                           Pick{{32767, 16, 32, "Gelu", false}, kernel_set::kCudaReference},
                           Pick{{32768, 16, 32, "", false}, kernel_set::kCudaReference},
                           Pick{{32768, 16, 32, "Relu", false}, kernel_set::kCudaReference}}) {
    const LinearCase& c = pick.c;
    const std::string what = std::string("fp32 pick ") + std::to_string(c.rows) + " rows + " + c.act;
    INFO(what);
    const Graph g = linear_graph(c, what);
    CHECK(kernel_set_serving(g, {{"x", Shape{c.rows, c.k}}}, Precision::fp32, "Linear") == pick.set);
    if (pick.set == kernel_set::kCuda) {
      const Tensor x = random_uniform({c.rows, c.k}, seed_of(what, 1), -1.f, 1.f);
      check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::fp32}, g, {{"x", x}}),
                          run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), Tolerance{1e-5, 1e-4});
    }
  }
}

TEST_CASE("cuda Linear in strict fp32: the split-operand kernel on odd rows, magnitudes far from 1, and its picks") {
  IE_REQUIRE_GPU();
  {
    const ScopedEnv split("IE_LINEAR_FP32", "split");  // every row count
    // The compiled shapes (K and N of 32, 64, 128, not both 128), no activation or GELU; rows 1, 7 (part of a
    // 16-row tile), 129, 5121 (part of a CTA's 128); inputs scaled by 1 and by 1e6 and 1e-6 (the rows' power-of-two
    // scaling keeps fp16's range and bits).
    const std::vector<LinearCase> shapes = {{0, 32, 64, "", false},  {0, 64, 64, "", true}, {0, 64, 128, "Gelu", false},
                                            {0, 128, 64, "", false}, {0, 64, 32, "", true}, {0, 128, 32, "Gelu", true}};
    for (const LinearCase& shape : shapes)
      for (int64_t rows : {1, 7, 129, 5121})
        for (float scale : {1.f, 1e6f, 1e-6f}) {
          if (scale != 1.f && rows != 129) continue;
          LinearCase c = shape;
          c.rows = rows;
          const std::string what = std::string("split fp32 ") + std::to_string(rows) + "x" + std::to_string(c.k) +
                                   " -> " + std::to_string(c.n) + (c.act[0] ? " + " : "") + c.act + " x" +
                                   std::to_string(scale);
          INFO(what);
          const Graph g = linear_graph(c, what);
          const Tensor x = random_uniform({c.rows, c.k}, seed_of(what, 1), -scale, scale);
          CHECK(kernel_set_serving(g, {{"x", x.shape()}}, Precision::fp32, "Linear") == kernel_set::kCuda);
          check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::fp32}, g, {{"x", x}}),
                              run_graph_on(Path{kernel_set::kCpu}, g, {{"x", x}}), Tolerance{1e-5 * scale, 1e-4});
        }
  }
  // By default from 320 rows; shapes outside the build's fall to the FFMA kernel's rules (here cuBLASLt).
  struct Pick {
    LinearCase c;
    const char* set;
  };
  for (const Pick& pick :
       {Pick{{320, 64, 64, "", false}, kernel_set::kCuda}, Pick{{319, 64, 64, "", false}, kernel_set::kCudaReference},
        Pick{{320, 64, 48, "", false}, kernel_set::kCudaReference},
        Pick{{320, 128, 128, "", false}, kernel_set::kCudaReference}}) {
    const LinearCase& c = pick.c;
    const std::string what = std::string("split pick ") + std::to_string(c.rows) + " rows " + std::to_string(c.k) +
                             " -> " + std::to_string(c.n);
    INFO(what);
    CHECK(kernel_set_serving(linear_graph(c, what), {{"x", Shape{c.rows, c.k}}}, Precision::fp32, "Linear") ==
          pick.set);
  }
}

TEST_CASE("cuda Linear with a residual (linear_residual) matches the CPU in every mode") {
  IE_REQUIRE_GPU();
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {{5121, 64, 64}, {7, 128, 64}, {1, 33, 70}};
  for (auto [rows, k, n] : shapes) {
    const std::string what =
        "Linear + residual " + std::to_string(rows) + "x" + std::to_string(k) + " -> " + std::to_string(n);
    Graph g = linear_graph(LinearCase{rows, k, n, "", false}, what);
    g.nodes.back().outputs = {"p"};
    g.nodes.push_back(make_node("Add", {"r", "p"}, {"y"}));
    g.nodes.back().name = "residual_add";
    g.inputs.push_back(TensorDecl{"r", DType::Float32, {rows, n}, {"", ""}});
    const std::map<std::string, Tensor> feeds = {{"x", random_uniform({rows, k}, seed_of(what, 1), -1.f, 1.f)},
                                                 {"r", random_uniform({rows, n}, seed_of(what, 4), -1.f, 1.f)}};
    for (std::string fp32_choice : {"", "ffma", "split"})
      for (Precision p : all_precisions()) {
        if (!fp32_choice.empty() && p != Precision::fp32) continue;
        INFO(what, " in ", precision_name(p), " (IE_LINEAR_FP32=", fp32_choice, ")");
        const ScopedEnv env("IE_LINEAR_FP32", fp32_choice);
        // fp16 and bf16 on WMMA; fp32 on FFMA where forced and K, N are multiples of 4, on the split kernel where
        // the build holds K x N (by default from 320 rows), else on cuBLASLt
        const bool split_shape = (k == 64 || k == 128) && n == 64;
        const bool split = split_shape && (fp32_choice == "split" || (fp32_choice.empty() && rows >= 320));
        const bool fused_set = p == Precision::fp16 || p == Precision::bf16 ||
                               (p == Precision::fp32 && fp32_choice == "ffma" && k % 4 == 0 && n % 4 == 0) ||
                               (p == Precision::fp32 && split);
        CHECK(kernel_set_serving(g, {{"x", Shape{rows, k}}, {"r", Shape{rows, n}}}, p, "Linear") ==
              (fused_set ? kernel_set::kCuda : kernel_set::kCudaReference));
        const Tolerance tol = p == Precision::fp32   ? Tolerance{1e-5, 1e-4}
                              : p == Precision::tf32 ? Tolerance{5e-3, 5e-3}
                                                     : tolerance_of(p);
        check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, feeds),
                            run_graph_on(Path{kernel_set::kCpu}, g, feeds), tol);
      }
  }
}

}  // namespace ie::test
