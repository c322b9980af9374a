// cuda-reference MaxPool, AveragePool and the global pools (cuDNN, with explicit padding for ceil_mode and
// asymmetric pads) against the CPU backend.
#include "cuda_compare.h"
#include "engine/core/shape.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

// Max pooling selects an input value (exact in practice); held to the fp32 elementwise tolerance.
constexpr Tolerance kMax{1e-6, 1e-5};
// Averages are fp32 reductions: a sum and a division, in another order than the CPU's.
constexpr Tolerance kAverage{1e-5, 1e-4};

struct PoolCase {
  Shape x;
  std::vector<int64_t> kernel, pads, strides;
  int64_t ceil_mode = 0, count_include_pad = 0;
};

void check_pool(const std::string& op, const PoolCase& c) {
  std::string what = op + " X=" + shape_to_string(c.x) + " kernel=" + shape_to_string(c.kernel);
  if (!c.pads.empty()) what += " pads=" + shape_to_string(c.pads);
  if (!c.strides.empty()) what += " strides=" + shape_to_string(c.strides);
  what += " ceil_mode=" + std::to_string(c.ceil_mode) + " count_include_pad=" + std::to_string(c.count_include_pad);
  Attributes a;
  a.set_ints("kernel_shape", c.kernel);
  if (!c.pads.empty()) a.set_ints("pads", c.pads);
  if (!c.strides.empty()) a.set_ints("strides", c.strides);
  a.set_int("ceil_mode", c.ceil_mode);
  if (op == "AveragePool") a.set_int("count_include_pad", c.count_include_pad);
  check_matches_cpu(what, make_node(op, {"x"}, {"y"}, a), {random_uniform(c.x, seed_of(what, 1), -2.f, 2.f)}, {false},
                    op == "MaxPool" ? kMax : kAverage);
}

TEST_CASE("cuda MaxPool: the ConvNet's pools and odd windows") {
  IE_REQUIRE_GPU();
  for (int64_t b : {1, 3, 257}) {
    check_pool("MaxPool", {{b, 4, 80, 80}, {2, 2}, {}, {2, 2}});
    check_pool("MaxPool", {{b, 16, 34, 34}, {4, 4}, {}, {4, 4}});  // floor drops the last 2 rows/cols
  }
  for (int64_t b : {1, 3}) {
    check_pool("MaxPool", {{b, 3, 7, 9}, {3, 3}, {}, {2, 2}, 1});              // ceil_mode
    check_pool("MaxPool", {{b, 3, 7, 9}, {3, 2}, {1, 0, 2, 1}, {2, 1}});       // asymmetric pads
    check_pool("MaxPool", {{b, 5, 11, 10}, {3, 3}, {1, 1, 1, 1}, {2, 2}, 1});  // pads + ceil_mode
    check_pool("MaxPool", {{b, 2, 13, 13}, {5, 5}, {2, 2, 2, 2}, {1, 1}});     // symmetric pads
    check_pool("MaxPool", {{b, 4, 17}, {3}, {1, 1}, {2}});                     // 1-D
  }
}

TEST_CASE("cuda AveragePool: pads, ceil_mode, count_include_pad") {
  IE_REQUIRE_GPU();
  for (int64_t b : {1, 3, 257}) check_pool("AveragePool", {{b, 4, 20, 20}, {2, 2}, {}, {2, 2}});
  for (int64_t b : {1, 3}) {
    for (int64_t include : {0, 1}) {
      check_pool("AveragePool", {{b, 3, 9, 11}, {3, 3}, {1, 1, 1, 1}, {2, 2}, 0, include});   // symmetric
      check_pool("AveragePool", {{b, 3, 7, 9}, {3, 3}, {}, {2, 2}, 1, include});              // ceil_mode
      check_pool("AveragePool", {{b, 3, 7, 9}, {3, 2}, {1, 0, 2, 1}, {2, 1}, 0, include});    // asymmetric
      check_pool("AveragePool", {{b, 5, 11, 10}, {3, 3}, {1, 1, 1, 1}, {2, 2}, 1, include});  // pads + ceil
      check_pool("AveragePool", {{b, 4, 17}, {4}, {2, 1}, {3}, 1, include});                  // 1-D
    }
  }
}

TEST_CASE("cuda global pools") {
  IE_REQUIRE_GPU();
  for (const Shape& x : {Shape{1, 7, 9, 11}, Shape{3, 16, 8, 8}, Shape{257, 5, 3, 5}, Shape{3, 6, 13}}) {
    const std::string what = shape_to_string(x);
    check_matches_cpu("GlobalAveragePool X=" + what, make_node("GlobalAveragePool", {"x"}, {"y"}),
                      {random_uniform(x, seed_of(what, 1))}, {false}, kAverage);
    check_matches_cpu("GlobalMaxPool X=" + what, make_node("GlobalMaxPool", {"x"}, {"y"}),
                      {random_uniform(x, seed_of(what, 2))}, {false}, kMax);
  }
}

TEST_CASE("cuda pools reject dilations and the Indices output") {
  Attributes a;
  a.set_ints("kernel_shape", {2, 2});
  CHECK(OpRegistry::get().supports(make_node("MaxPool", {"x"}, {"y"}, a), "cuda-reference"));
  CHECK_FALSE(OpRegistry::get().supports(make_node("MaxPool", {"x"}, {"y", "i"}, a), "cuda-reference"));
  a.set_ints("dilations", {2, 1});
  CHECK_FALSE(OpRegistry::get().supports(make_node("MaxPool", {"x"}, {"y"}, a), "cuda-reference"));
  CHECK_FALSE(OpRegistry::get().supports(make_node("AveragePool", {"x"}, {"y"}, a), "cuda-reference"));
}

}  // namespace
}  // namespace ie::test
