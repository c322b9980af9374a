// cuda-reference Softmax and LogSoftmax (cuDNN, CHANNEL mode over [outer, n, inner, 1]) against the CPU backend,
// for every axis and for opset < 13's 2-D coercion; the fused set's row kernel (softmax_rows.cuh) in every
// precision on odd row lengths and counts, and what it declines.
#include <cmath>

#include "cuda_compare.h"
#include "engine/core/float_convert.h"
#include "engine/core/shape.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

// A reduction (max, sum of exponentials) then one division or subtraction per element.
constexpr Tolerance kSoftmax{1e-5, 1e-4};

void check_soft(const std::string& op, const Shape& x, int64_t axis, int64_t opset) {
  const std::string what =
      op + " X=" + shape_to_string(x) + " axis=" + std::to_string(axis) + " opset=" + std::to_string(opset);
  Attributes a;
  a.set_int("axis", axis);
  check_matches_cpu(what, make_node(op, {"x"}, {"y"}, a), {random_uniform(x, seed_of(what, 1), -5.f, 5.f)}, {false},
                    kSoftmax, opset);
}

TEST_CASE("cuda Softmax and LogSoftmax along any axis") {
  IE_REQUIRE_GPU();
  for (const std::string op : {"Softmax", "LogSoftmax"}) {
    for (int64_t b : {1, 3, 257}) {
      check_soft(op, {b, 10}, -1, 13);         // ConvNet head
      check_soft(op, {b, 4, 10, 10}, -1, 13);  // attention
      check_soft(op, {b, 4, 10, 10}, 2, 13);   // a middle axis
    }
    check_soft(op, {3, 5, 7}, 0, 13);
    check_soft(op, {3, 5, 7}, 1, 13);
    check_soft(op, {33}, 0, 13);
    check_soft(op, {2, 3, 1000}, -1, 13);
  }
}

TEST_CASE("cuda Softmax and LogSoftmax before opset 13 (2-D coercion)") {
  IE_REQUIRE_GPU();
  for (const std::string op : {"Softmax", "LogSoftmax"}) {
    check_soft(op, {3, 5, 7}, 1, 11);
    check_soft(op, {3, 5, 7}, 0, 11);
    check_soft(op, {257, 4, 3}, 2, 11);
    check_soft(op, {1, 10}, 1, 11);
  }
}

// The node alone as a graph (x an input), for the kernel set that serves it.
Graph soft_graph(const std::string& op, const Shape& x, int64_t axis) {
  Attributes a;
  a.set_int("axis", axis);
  Graph g;
  g.opset = 17;
  g.source = "softmax test graph";
  g.nodes = {make_node(op, {"x"}, {"y"}, a)};
  g.nodes[0].name = "soft";
  g.inputs = {TensorDecl{"x", DType::Float32, x, std::vector<std::string>(x.size(), "")}};
  g.outputs = {inferred_output("y")};
  return g;
}

}  // namespace

TEST_CASE("cuda Softmax and LogSoftmax on the fused set: every precision, odd row lengths and counts") {
  IE_REQUIRE_GPU();
  for (const std::string op : {"Softmax", "LogSoftmax"})
    for (Precision p : all_precisions())
      for (const Shape& x : std::vector<Shape>{
               {1, 1}, {7, 3}, {10001, 10}, {5, 31}, {3, 32}, {2, 33}, {9, 100}, {4, 3, 257}, {3, 1000}, {2, 1024}}) {
        const std::string what = op + " X=" + shape_to_string(x) + " in " + precision_name(p);
        INFO(what);
        const Graph g = soft_graph(op, x, -1);
        CHECK(kernel_set_serving(g, {{"x", x}}, p, op) == kernel_set::kCuda);
        const Tensor in = random_uniform(x, seed_of(what, 1), -8.f, 8.f);
        check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", in}}),
                            run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in}}), fused_tolerance(p));
      }
}

TEST_CASE("cuda Softmax on the fused set: a NaN makes its row NaN only; other axes and long rows are declined") {
  IE_REQUIRE_GPU();
  Tensor in = random_uniform({3, 10}, 5, -1.f, 1.f);
  in.data_as<float>()[10 + 4] = NAN;
  const Tensor y =
      run_graph_on(Path{kernel_set::kCuda, "", Precision::bf16}, soft_graph("Softmax", {3, 10}, -1), {{"x", in}})[0];
  const Tensor yf = convert_floats(y, DType::Float32);
  for (int64_t i = 0; i < 30; ++i) CHECK(std::isnan(yf.data_as<float>()[i]) == (i / 10 == 1));
  CHECK(kernel_set_serving(soft_graph("Softmax", {4, 10, 6}, 1), {{"x", {4, 10, 6}}}, Precision::fp32, "Softmax") ==
        kernel_set::kCudaReference);
  CHECK(kernel_set_serving(soft_graph("Softmax", {2, 1025}, -1), {{"x", {2, 1025}}}, Precision::fp32, "Softmax") ==
        kernel_set::kCudaReference);
}

}  // namespace ie::test
