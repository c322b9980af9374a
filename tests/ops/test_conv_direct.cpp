// Conv and ie.FusedConv on the shapes the CPU direct convolution serves (layers/common/cpu/direct_conv.h): random
// odd shapes against a plain float64 reference, batch 1 split over more threads than images, float16 and float64
// tensors (float16 computed in float by the direct kernel, float64 by the im2col path), weights that are not
// constant (packed on each run), NaN inputs, and shapes just outside what the direct kernel serves. Every case runs
// on each instruction set this processor has (AVX2, and AVX-512 where present: engine/core/cpu_isa.h), and the
// paths must agree bit for bit.
#include <algorithm>
#include <limits>
#include <random>

#include "engine/core/cpu_isa.h"
#include "engine/core/parallel.h"
#include "tests/ops/nn_test_util.h"
#include "tests/unit/graph_builder.h"

using namespace ie;
using namespace ie::test;

namespace {

struct Case {
  int64_t n, c, m, h, w, kh, kw, pad;
  bool bias, relu;
  int64_t pool_k = 0, pool_s = 0, pool_pad = 0;  // pool_k 0: no pool
  bool ceil_mode = false;
  int64_t stride = 1, group = 1;
};

// Conv + bias, ReLU, then the max pool in float64; the output spatial size is taken from the engine's result
// (the window rules themselves are tested with MaxPool).
std::vector<double> reference(const Case& k, const std::vector<double>& x, const std::vector<double>& w,
                              const std::vector<double>& b, int64_t out_h, int64_t out_w) {
  const int64_t ch = (k.h + 2 * k.pad - k.kh) / k.stride + 1, cw = (k.w + 2 * k.pad - k.kw) / k.stride + 1;
  const int64_t cg = k.c / k.group, mg = k.m / k.group;
  std::vector<double> conv(static_cast<size_t>(k.n * k.m * ch * cw));
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t m = 0; m < k.m; ++m)
      for (int64_t oy = 0; oy < ch; ++oy)
        for (int64_t ox = 0; ox < cw; ++ox) {
          double acc = k.bias ? b[m] : 0.0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ky = 0; ky < k.kh; ++ky)
              for (int64_t kx = 0; kx < k.kw; ++kx) {
                const int64_t iy = oy * k.stride + ky - k.pad, ix = ox * k.stride + kx - k.pad;
                if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w) continue;
                const int64_t ci = (m / mg) * cg + c;
                acc += x[((n * k.c + ci) * k.h + iy) * k.w + ix] * w[((m * cg + c) * k.kh + ky) * k.kw + kx];
              }
          if (k.relu && acc < 0) acc = 0;
          conv[((n * k.m + m) * ch + oy) * cw + ox] = acc;
        }
  if (!k.pool_k) return conv;
  std::vector<double> out(static_cast<size_t>(k.n * k.m * out_h * out_w));
  for (int64_t i = 0; i < k.n * k.m; ++i)
    for (int64_t py = 0; py < out_h; ++py)
      for (int64_t px = 0; px < out_w; ++px) {
        double best = std::numeric_limits<float>::lowest();
        for (int64_t dy = 0; dy < k.pool_k; ++dy)
          for (int64_t dx = 0; dx < k.pool_k; ++dx) {
            const int64_t y = py * k.pool_s - k.pool_pad + dy, xx = px * k.pool_s - k.pool_pad + dx;
            if (y < 0 || y >= ch || xx < 0 || xx >= cw) continue;
            const double v = conv[(i * ch + y) * cw + xx];
            if (v > best || std::isnan(v)) best = std::isnan(best) ? best : v;  // NaN wins, as in MaxPool
          }
        out[(i * out_h + py) * out_w + px] = best;
      }
  return out;
}

// The instruction sets this processor runs the direct kernel with (the build's baseline first).
std::vector<CpuIsa> isas() {
  std::vector<CpuIsa> v{baseline_cpu_isa()};
  if (best_cpu_isa() == CpuIsa::Avx512) v.push_back(CpuIsa::Avx512);
  return v;
}

// Runs fn() once per instruction set, then restores the one in force.
template <class Fn>
void for_each_isa(Fn&& fn) {
  const CpuIsa saved = cpu_isa();
  for (CpuIsa isa : isas()) {
    set_cpu_isa(isa);
    INFO("cpu kernels ", cpu_isa_name(isa));
    fn();
  }
  set_cpu_isa(saved);
}

// Runs the case as Conv (no activation, no pool) or ie.FusedConv in `dtype` and checks it against the reference.
// Tolerance: fp32 sums of up to 16*7*7 products of values in [-1, 1): rtol 1e-4, atol 1e-4 (float16: the
// inputs are rounded to float16 first, which the reference sees too; outputs are float16: rtol 2e-3, atol 2e-3).
void check_case(const Case& k, DType dtype = DType::Float32, uint32_t seed = 1) {
  auto round_to = [&](std::vector<double> v) {
    Tensor t = tensor(dtype, {static_cast<int64_t>(v.size())}, v);
    for (size_t i = 0; i < v.size(); ++i) v[i] = value_at(t, static_cast<int64_t>(i));
    return v;
  };
  const auto x = round_to(ramp(k.n * k.c * k.h * k.w, seed));
  const auto w = round_to(ramp(k.m * (k.c / k.group) * k.kh * k.kw, seed + 1));
  const auto b = round_to(ramp(k.m, seed + 2));
  Attributes a;
  a.set_ints("pads", {k.pad, k.pad, k.pad, k.pad});
  a.set_ints("strides", {k.stride, k.stride});
  a.set_int("group", k.group);
  const bool fused = k.relu || k.pool_k;
  if (k.relu) a.set_string("activation", "Relu");
  if (k.pool_k) {
    a.set_string("pool", "MaxPool");
    a.set_ints("pool_kernel_shape", {k.pool_k, k.pool_k});
    a.set_ints("pool_strides", {k.pool_s, k.pool_s});
    a.set_ints("pool_pads", {k.pool_pad, k.pool_pad, k.pool_pad, k.pool_pad});
    a.set_int("pool_ceil_mode", k.ceil_mode ? 1 : 0);
  }
  std::vector<Tensor> in{tensor(dtype, {k.n, k.c, k.h, k.w}, x), tensor(dtype, {k.m, k.c / k.group, k.kh, k.kw}, w)};
  std::vector<std::string> names{"x", "w"};
  if (k.bias) {
    in.push_back(tensor(dtype, {k.m}, b));
    names.push_back("b");
  }
  INFO("n ", k.n, " c ", k.c, " m ", k.m, " ", k.h, "x", k.w, " k ", k.kh, "x", k.kw, " pad ", k.pad, " pool ",
       k.pool_k, "/", k.pool_s, " pad ", k.pool_pad, " ceil ", k.ceil_mode, " relu ", k.relu, " bias ", k.bias);
  const double tol = dtype == DType::Float16 ? 2e-3 : 1e-4;
  Tensor first;
  for_each_isa([&] {
    auto y = run_node_cpu(make_node(fused ? "FusedConv" : "Conv", names, {"y"}, a, fused ? "ie" : ""), in, 17);
    REQUIRE(y[0].shape().size() == 4);
    const int64_t out_h = y[0].shape()[2], out_w = y[0].shape()[3];
    check_close(y[0], {k.n, k.m, out_h, out_w}, reference(k, x, w, b, out_h, out_w), tol, tol);
    if (first.empty()) {
      first = y[0];
      return;
    }
    // Same products summed in the same order with FMAs, exact max, bias and ReLU: the AVX2 and AVX-512 paths
    // agree bit for bit (a plain C++ baseline rounds each product: only the tolerance applies).
    if (baseline_cpu_isa() == CpuIsa::Avx2) CHECK(bitwise_equal(y[0], first));
  });
}

}  // namespace

TEST_CASE("Conv/FusedConv direct path: the conv net's two layers") {
  check_case({3, 1, 4, 86, 86, 7, 7, 0, true, true, 2, 2});
  check_case({2, 4, 16, 40, 40, 7, 7, 0, true, true, 4, 4});
}

TEST_CASE("Conv/FusedConv direct path: random odd shapes") {
  std::mt19937 rng(2024);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int i = 0; i < 40; ++i) {
    Case k{};
    k.n = pick(1, 3), k.c = pick(1, 16), k.m = pick(1, 64), k.kw = pick(3, 7);
    k.kh = i % 8 == 5 ? pick(1, 7) : k.kw;  // a few non-square kernels
    k.pad = i % 3 == 0 ? 0 : pick(0, k.kw / 2);
    k.h = pick(k.kh, k.kh + 25), k.w = pick(k.kw, k.kw + 35);
    k.bias = i % 4 != 1, k.relu = i % 5 != 2;
    switch (i % 4) {
      case 0:
        break;
      case 1:
        k.pool_k = 2, k.pool_s = 2;
        break;
      case 2:
        k.pool_k = 3, k.pool_s = 2, k.pool_pad = 1, k.ceil_mode = true;
        break;
      default:
        k.pool_k = pick(1, 4), k.pool_s = pick(1, 4);
        break;
    }
    const int64_t ch = k.h + 2 * k.pad - k.kh + 1, cw = k.w + 2 * k.pad - k.kw + 1;
    if (k.pool_k > std::min(ch, cw)) k.pool_k = 0;
    check_case(k, DType::Float32, 100 + i);
  }
}

TEST_CASE("Conv/FusedConv direct path: widths off the 16-float vector, 1/3/16 in and 4/16/20 out channels") {
  // Conv widths 1..15 past a multiple of 16 (AVX-512 tiles ending in a half vector or spare columns), one, two and
  // two-and-a-half blocks of 8 output channels, pools 2/2 and 3/2 (padded, ceil mode) and none.
  const int64_t widths[] = {9, 23, 41, 50, 86};
  int i = 0;
  for (int64_t c : {1, 3, 16})
    for (int64_t m : {4, 16, 20})
      for (int pool : {0, 2, 3}) {
        Case k{};
        k.n = 1 + i % 2, k.c = c, k.m = m, k.kw = 3 + (i * 2) % 5, k.kh = k.kw;
        k.pad = i % 2 ? k.kw / 2 : 0, k.h = k.kh + 2 + i % 7, k.w = widths[i % 5];
        k.bias = i % 4 != 1, k.relu = i % 3 != 0;
        if (pool == 2) k.pool_k = 2, k.pool_s = 2;
        if (pool == 3) k.pool_k = 3, k.pool_s = 2, k.pool_pad = 1, k.ceil_mode = true;
        check_case(k, DType::Float32, 500 + i++);
      }
}

TEST_CASE("cpu_isa: a choice is lowered to what the processor and build have") {
  const CpuIsa saved = cpu_isa();
  CHECK(set_cpu_isa(CpuIsa::Avx512) == best_cpu_isa());
  CHECK(set_cpu_isa(CpuIsa::Avx2) == baseline_cpu_isa());
  CHECK(set_cpu_isa(CpuIsa::Generic) == baseline_cpu_isa());
  CHECK(cpu_isa() == baseline_cpu_isa());
  set_cpu_isa(saved);
}

TEST_CASE("Conv/FusedConv direct path: batch 1 over more threads than images splits rows") {
  const int saved = cpu_threads();
  for (int threads : {1, 2, 3, std::min(7, max_cpu_threads())}) {
    set_cpu_threads(threads);
    check_case({1, 3, 20, 31, 29, 5, 5, 2, true, true, 3, 2, 1, true});
    check_case({2, 2, 9, 17, 23, 3, 3, 1, true, false});
  }
  set_cpu_threads(saved);
}

TEST_CASE("Conv/FusedConv direct path: float16 and float64 tensors") {
  check_case({2, 3, 8, 19, 21, 5, 5, 1, true, true, 2, 2}, DType::Float16);
  check_case({2, 3, 8, 19, 21, 5, 5, 1, true, true, 2, 2}, DType::Float64);
  check_case({1, 2, 5, 13, 12, 3, 3, 0, false, false}, DType::Float16);
}

TEST_CASE("Conv/FusedConv outside the direct path: stride 2, group 2, 17 channels, 1x1 and 9x9 kernels") {
  check_case({2, 4, 6, 15, 14, 3, 3, 1, true, true, 2, 2, 0, false, 2, 1});
  check_case({2, 4, 6, 15, 14, 3, 3, 1, true, false, 0, 0, 0, false, 1, 2});
  check_case({1, 17, 5, 11, 12, 3, 3, 1, true, true, 2, 2});
  check_case({1, 3, 5, 11, 12, 1, 1, 0, true, true});
  check_case({1, 2, 3, 13, 14, 9, 9, 2, true, true, 2, 2});
}

TEST_CASE("Conv/FusedConv direct path: weights that are graph inputs are packed on each run") {
  const Case k{2, 3, 10, 23, 19, 5, 5, 2, true, true, 3, 2, 1, true};
  const auto x = ramp(k.n * k.c * k.h * k.w, 5), w = ramp(k.m * k.c * k.kh * k.kw, 6), b = ramp(k.m, 7);
  Attributes a;
  a.set_ints("pads", {k.pad, k.pad, k.pad, k.pad});
  a.set_string("activation", "Relu");
  a.set_string("pool", "MaxPool");
  a.set_ints("pool_kernel_shape", {k.pool_k, k.pool_k});
  a.set_ints("pool_strides", {k.pool_s, k.pool_s});
  a.set_ints("pool_pads", {k.pool_pad, k.pool_pad, k.pool_pad, k.pool_pad});
  a.set_int("pool_ceil_mode", 1);
  GraphBuilder g;
  g.input("x", {k.n, k.c, k.h, k.w}).input("w", {k.m, k.c, k.kh, k.kw}).input("b", {k.m});
  g.node("FusedConv", {"x", "w", "b"}, {"y"}, a, "fused").domain = "ie";
  g.output("y");
  for_each_isa([&] {
    auto y = run_engine(
        g.build(), {{"x", f32({k.n, k.c, k.h, k.w}, x)}, {"w", f32({k.m, k.c, k.kh, k.kw}, w)}, {"b", f32({k.m}, b)}});
    const int64_t out_h = y[0].shape()[2], out_w = y[0].shape()[3];
    check_close(y[0], {k.n, k.m, out_h, out_w}, reference(k, x, w, b, out_h, out_w), 1e-4, 1e-4);
  });
}

TEST_CASE("Conv/FusedConv direct path: a NaN input reaches every output whose window sees it") {
  for_each_isa([] {
    for (int pool : {0, 2}) {
      Case k{1, 2, 5, 12, 17, 3, 3, 1, true, true, pool, pool};
      auto x = ramp(k.n * k.c * k.h * k.w, 9);
      x[1 * k.h * k.w + 5 * k.w + 7] = std::nan("");  // channel 1, row 5, column 7
      const auto w = ramp(k.m * k.c * k.kh * k.kw, 10), b = ramp(k.m, 11);
      Attributes a;
      a.set_ints("pads", {1, 1, 1, 1});
      a.set_string("activation", "Relu");
      if (pool) {
        a.set_string("pool", "MaxPool");
        a.set_ints("pool_kernel_shape", {2, 2});
        a.set_ints("pool_strides", {2, 2});
      }
      auto y = run_node_cpu(make_node("FusedConv", {"x", "w", "b"}, {"y"}, a, "ie"),
                            {f32({k.n, k.c, k.h, k.w}, x), f32({k.m, k.c, k.kh, k.kw}, w), f32({k.m}, b)}, 17);
      const auto want = reference(k, x, w, b, y[0].shape()[2], y[0].shape()[3]);
      int64_t nans = 0;
      for (int64_t i = 0; i < y[0].numel(); ++i) {
        const double got = value_at(y[0], i);
        CHECK(std::isnan(got) == std::isnan(want[i]));
        if (!std::isnan(want[i])) CHECK(std::fabs(got - want[i]) <= 1e-4 + 1e-4 * std::fabs(want[i]));
        nans += std::isnan(want[i]) ? 1 : 0;
      }
      CHECK(nans == (pool ? 5 * 4 : 5 * 9));  // every output channel: the 3x3 conv outputs around it (2x2 pooled)
    }
  });
}

// The im2col path's products peel unaligned leading elements into a scalar loop: with scratch of whatever
// alignment the heap gave, the first run in a process rounded 7 of these 72 outputs differently from later runs
// (and from the AVX-512 run the check above compares with). Its scratch is now aligned: the same bits every run.
TEST_CASE("Conv/FusedConv on the im2col path gives the same bits on every run") {
  const Case k{1, 4, 6, 15, 14, 3, 3, 1, true, true, 2, 2, 0, false, 2, 1};
  const auto x = ramp(k.n * k.c * k.h * k.w, 1), w = ramp(k.m * k.c * k.kh * k.kw, 2), b = ramp(k.m, 3);
  Attributes a;
  a.set_ints("pads", {k.pad, k.pad, k.pad, k.pad});
  a.set_ints("strides", {k.stride, k.stride});
  a.set_string("activation", "Relu");
  a.set_string("pool", "MaxPool");
  a.set_ints("pool_kernel_shape", {k.pool_k, k.pool_k});
  a.set_ints("pool_strides", {k.pool_s, k.pool_s});
  const std::vector<Tensor> in{tensor(DType::Float32, {k.n, k.c, k.h, k.w}, x),
                               tensor(DType::Float32, {k.m, k.c, k.kh, k.kw}, w), tensor(DType::Float32, {k.m}, b)};
  const Tensor first = run_node_cpu(make_node("FusedConv", {"x", "w", "b"}, {"y"}, a, "ie"), in, 17)[0];
  for (int run = 1; run < 4; ++run) {
    INFO("run ", run);
    CHECK(bitwise_equal(run_node_cpu(make_node("FusedConv", {"x", "w", "b"}, {"y"}, a, "ie"), in, 17)[0], first));
  }
}
