// The fused set's ie.FusedConv (conv + bias + ReLU + max pool on Tensor Cores, FFMA in strict fp32) against the
// CPU backend on odd shapes in every precision mode, pinned to the "cuda" kernel set so that a decline fails the
// test rather than passing on the reference kernels; and the declines themselves, with their reasons.
#include <cmath>
#include <optional>

#include "cuda_compare.h"
#include "engine/backend/backend.h"
#include "engine/core/float_convert.h"
#include "engine/planner/plan.h"
#include "engine/profile/tuning_cache.h"
#include "engine/registry/node_runner.h"

namespace ie::test {
namespace {

// Per mode, against the CPU's fp32 (outputs are O(1): images in [0, 1), weights scaled by 1/sqrt(fan_in)):
// fp32 is FFMA in another summation order; tf32 rounds both operands to 10 mantissa bits; fp16 and bf16 store
// the input and the output in 16 bits and multiply 16-bit operands (bf16: 8 significant bits).
Tolerance tolerance_of(Precision p) {
  switch (p) {
    case Precision::fp32:
      return {1e-5, 1e-4};
    case Precision::tf32:
      return {1e-2, 1e-2};
    case Precision::fp16:
      return {1e-2, 1e-2};
    default:
      return {2e-2, 2e-2};
  }
}

struct FusedCase {
  Shape x;  // N, C, H, W
  int64_t k, r, pad;
  int64_t pool, stride;  // pool 0: none
};

Node fused_conv_node(const FusedCase& c, const std::string& x = "x") {
  Attributes a;
  a.set_ints("pads", {c.pad, c.pad, c.pad, c.pad});
  a.set_string("activation", "Relu");
  a.set_string("pool", c.pool ? "MaxPool" : "");
  if (c.pool) {
    a.set_ints("pool_kernel_shape", {c.pool, c.pool});
    a.set_ints("pool_strides", {c.stride, c.stride});
  }
  return make_node("FusedConv", {x, "w", "b"}, {"y"}, a, "ie");
}

std::vector<Tensor> inputs_of(const FusedCase& c, const std::string& what) {
  const float r = 1.f / std::sqrt(static_cast<float>(c.x[1] * c.r * c.r));
  return {random_uniform(c.x, seed_of(what, 1), 0.f, 1.f),
          random_uniform({c.k, c.x[1], c.r, c.r}, seed_of(what, 2), -r, r),
          random_uniform({c.k}, seed_of(what, 3), -0.3f, 0.3f)};
}

// The node alone as a graph: x an input, the weight and bias constants. With `through_identity` x reaches it through
// a 1x1 identity FusedConv (taken by no fused kernel): in the 16-bit modes the node then reads the mode's type, as a
// second convolution does, not the graph's float32 input with the Cast folded.
Graph graph_of(const FusedCase& c, const std::vector<Tensor>& in, const std::string& name,
               bool through_identity = false) {
  Graph g;
  g.opset = 17;
  g.source = "fused conv test graph";
  Node n = fused_conv_node(c, through_identity ? "x1" : "x");
  n.name = name;
  g.nodes = {n};
  g.constants = {{"w", in[1]}, {"b", in[2]}};
  if (through_identity) {
    Attributes a;
    a.set_ints("pads", {0, 0, 0, 0});
    a.set_string("activation", "");  // none: cuDNN's fused ReLU (the reference set's) turns NaN into 0
    a.set_string("pool", "");
    Node pre = make_node("FusedConv", {"x", "wi", "bi"}, {"x1"}, a, "ie");
    pre.name = name + "_identity";
    const int64_t ch = c.x[1];
    Tensor wi(DType::Float32, {ch, ch, 1, 1}), bi(DType::Float32, {ch});
    for (int64_t i = 0; i < ch * ch; ++i) wi.data_as<float>()[i] = i % (ch + 1) == 0 ? 1.f : 0.f;
    for (int64_t i = 0; i < ch; ++i) bi.data_as<float>()[i] = 0.f;
    g.nodes = {pre, n};
    g.constants["wi"] = wi;
    g.constants["bi"] = bi;
  }
  g.inputs = {TensorDecl{"x", DType::Float32, c.x, std::vector<std::string>(4, "")}};
  g.outputs = {inferred_output("y")};
  return g;
}

// The kernel set that serves the last FusedConv step of the graph's plan on the cuda backend in mode `p` (the
// case's node: graph_of puts the identity first).
std::string served_by(const Graph& g, const Shape& x, Precision p) {
  return kernel_set_serving(g, {{"x", x}}, p, "FusedConv", true);
}

std::string describe(const FusedCase& c) {
  return "FusedConv X=" + shape_to_string(c.x) + " K=" + std::to_string(c.k) + " r=" + std::to_string(c.r) +
         " pad=" + std::to_string(c.pad) + " pool=" + std::to_string(c.pool) + "/" + std::to_string(c.stride);
}

}  // namespace

TEST_CASE("cuda FusedConv (fused set) matches the CPU in every precision on odd shapes") {
  IE_REQUIRE_GPU();
  const std::vector<FusedCase> cases = {
      {{1, 1, 86, 86}, 4, 7, 0, 2, 2},     // the conv net's conv1, batch 1
      {{7, 4, 40, 40}, 16, 7, 0, 4, 4},    // conv2 (34x34 -> 8x8 keeps 32 rows), batch 7
      {{1000, 1, 86, 86}, 4, 7, 0, 2, 2},  // conv1, batch 1000
      {{3, 3, 33, 29}, 20, 5, 2, 3, 2},    // odd sizes, overlapping pool, 20 channels
      {{2, 16, 17, 19}, 64, 3, 1, 0, 0},   // no pool, the widest channels
      {{5, 4, 31, 29}, 16, 7, 3, 2, 2},    // padding 3
  };
  for (Precision p : all_precisions())
    for (const FusedCase& c : cases) {
      const std::string what = describe(c);
      const std::vector<Tensor> in = inputs_of(c, what);
      const Graph g = graph_of(c, in, "fused");
      INFO(what, " in ", precision_name(p));
      CHECK(served_by(g, c.x, p) == kernel_set::kCuda);
      check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", in[0]}}),
                          run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in[0]}}), tolerance_of(p));
    }
}

// In fp16/bf16 the graph's float32 input is not cast by a step of its own: the rule conv_input_cast folds the Cast
// into the node, and both kernel families stage float32 pixels as the operand type.
TEST_CASE("cuda FusedConv reads the graph's float32 input in fp16 and bf16 without a Cast step") {
  IE_REQUIRE_GPU();
  const std::vector<FusedCase> cases = {
      {{1, 1, 86, 86}, 4, 7, 0, 2, 2},     // conv1, batch 1 (stacked kernel)
      {{1001, 1, 86, 86}, 4, 7, 0, 2, 2},  // conv1, odd large batch
      {{3, 3, 33, 29}, 20, 5, 2, 3, 2},    // 20 channels: the pixels-on-M kernel
      {{2, 16, 17, 19}, 64, 3, 1, 0, 0},   // 64 channels, no pool
  };
  for (Precision p : {Precision::bf16, Precision::fp16})
    for (const FusedCase& c : cases) {
      const std::string what = describe(c);
      INFO(what, " in ", precision_name(p));
      const std::vector<Tensor> in = inputs_of(c, what);
      const Graph g = graph_of(c, in, "float_in");
      Options opts;
      opts.precision = p;
      PlanOptions popts;
      popts.precision = p;
      auto plan = build_plan(g, {{"x", c.x}}, make_backend(kernel_set::kCuda, opts), popts);
      int casts = 0;
      for (auto& step : plan->steps) {
        casts += step.node.op_type == "Cast" && step.node.inputs[0] == "x";
        if (step.node.op_type == "FusedConv") {
          CHECK(step.kernel_set == kernel_set::kCuda);
          CHECK(step.node.inputs[0] == "x");
        }
      }
      CHECK(casts == 0);
      check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", in[0]}}),
                          run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in[0]}}), tolerance_of(p));
    }
}

// Strict fp32 runs the FFMA kernels; each of their configurations forced on kernel sizes the unrolled rows take (3,
// 5, 7) and ones they leave to the general loop (4, 6), with one and several input channels; the column kernel's
// configurations on the same shapes (every kernel size compiled; pooled in registers or not: the 3/2 pool).
TEST_CASE("cuda FusedConv: every strict-fp32 configuration matches the CPU") {
  IE_REQUIRE_GPU();
  const std::vector<FusedCase> cases = {
      {{1, 1, 86, 86}, 4, 7, 0, 2, 2},     // conv1, batch 1
      {{1001, 1, 86, 86}, 4, 7, 0, 2, 2},  // conv1, odd large batch
      {{7, 4, 40, 40}, 16, 7, 0, 4, 4},    // conv2
      {{3, 3, 33, 29}, 20, 5, 2, 3, 2},    // 5x5, overlapping pool, 20 channels
      {{2, 16, 17, 19}, 64, 3, 1, 0, 0},   // 3x3, no pool, the widest channels
      {{2, 2, 20, 21}, 6, 4, 0, 2, 2},     // 4x4: the general loop
      {{3, 3, 22, 18}, 8, 6, 1, 0, 0},     // 6x6 with padding
  };
  for (const FusedCase& c : cases) {
    const std::string what = describe(c);
    const std::vector<Tensor> in = inputs_of(c, what);
    const Graph g = graph_of(c, in, "ffma");
    const std::vector<Tensor> want = run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in[0]}});
    for (const char* config :
         {"w8_m4_px1024", "w4_m2_px512", "w8_m4_px1024_rows", "w4_m2_px512_rows", "cols_r16_w8_px1024",
          "cols_r16_w4_px2048", "cols_r8_w4_px3200", "cols_r8_w8_px6400", "cols_r8_w5_px6400"}) {
      INFO(what, " with ", config);
      ScopedEnv env("IE_FUSED_CONV_CONFIG", config);
      CHECK(served_by(g, c.x, Precision::fp32) == kernel_set::kCuda);
      check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::fp32}, g, {{"x", in[0]}}), want,
                          tolerance_of(Precision::fp32));
    }
  }
}

TEST_CASE("cuda FusedConv (fused set) at batch 10001 in bf16 and strict fp32") {
  IE_REQUIRE_GPU();
  const FusedCase c{{10001, 4, 40, 40}, 16, 7, 0, 4, 4};
  const std::string what = describe(c);
  const std::vector<Tensor> in = inputs_of(c, what);
  const Graph g = graph_of(c, in, "fused");
  const std::vector<Tensor> want = run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in[0]}});
  for (Precision p : {Precision::bf16, Precision::fp32}) {
    INFO(what, " in ", precision_name(p));
    CHECK(served_by(g, c.x, p) == kernel_set::kCuda);
    check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", in[0]}}), want, tolerance_of(p));
  }
}

TEST_CASE("cuda FusedConv declines what it does not run, with the reason, and the node still runs") {
  IE_REQUIRE_GPU();
  // 17 input channels: beyond the kernel's range; the reference set takes the unpooled node.
  FusedCase wide{{2, 17, 12, 12}, 8, 3, 1, 0, 0};
  std::vector<Tensor> in = inputs_of(wide, "decline");
  Graph g = graph_of(wide, in, "conv17");
  auto plan = build_plan(g, {{"x", wide.x}}, make_backend(kernel_set::kCuda, Options{}), PlanOptions{});
  REQUIRE(plan->steps.size() == 1);
  CHECK(plan->steps[0].kernel_set == kernel_set::kCudaReference);
  REQUIRE(!plan->steps[0].declined.empty());
  CHECK(plan->steps[0].declined[0] == "cuda: input channels must be 1..16");
  check_outputs_match(run_graph_on(Path{kernel_set::kCuda}, g, {{"x", in[0]}}),
                      run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in[0]}}), Tolerance{1e-5, 1e-4});
}

}  // namespace ie::test

namespace ie::test {

TEST_CASE("cuda FusedConv times its tile configurations once and keeps the winner in the tuning cache") {
  IE_REQUIRE_GPU();
  const FusedCase c{{37, 4, 40, 40}, 16, 7, 0, 4, 4};
  const std::string what = describe(c);
  const std::vector<Tensor> in = inputs_of(c, what);
  const Graph g = graph_of(c, in, "tuned");
  const std::vector<Tensor> want = run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in[0]}});
  for (const char* mode : {"off", "search", "cached"}) {
    INFO("IE_TUNE=", mode);
    ScopedEnv env("IE_TUNE", mode);
    check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", Precision::bf16}, g, {{"x", in[0]}}), want,
                        tolerance_of(Precision::bf16));
  }
  const std::string text = read_text(tuning_cache_path(make_backend(kernel_set::kCuda, Options{})->device_name()));
  CHECK(text.find("fused_conv_") != std::string::npos);
  CHECK(text.find("37,4,40,40/16,7/0/4,4/bfloat16") != std::string::npos);
}

}  // namespace ie::test

namespace ie::test {

// Whether the stacked kernel takes a shape in a mode: one M tile of output channels (k <= 16) and K in at most 16
// k-steps of 8 words (words of two 16-bit taps, or one tf32 tap), over c channels x (dy + r - 1) rows of taps;
// in tf32 mode only products of at least 64 terms (shorter ones keep fp32's accuracy, on FFMA).
bool stacked_takes(const FusedCase& c, Precision p) {
  if (p == Precision::tf32 && c.x[1] * c.r * c.r < 64) return false;
  int kp = 1;
  while (kp < c.k) kp *= 2;
  const int e = p == Precision::tf32 ? 1 : 2;
  const int rp = static_cast<int>((c.r + e - 1) / e * e), rows = 16 / std::min(kp, 16) + static_cast<int>(c.r) - 1;
  const int ksteps = (static_cast<int>(c.x[1]) * rows * rp / e + 7) / 8;
  return c.k <= 16 && ksteps <= 16;
}

// Every configuration of the stacked kernel (weights on the MMA's M side, k <= 16), forced one at a time, on the
// shapes that reach each of its paths: pooling in registers across lanes (kp 1, 2, 4), inside the lane (kp 8) and
// over row blocks (kp 16), no pool, an overlapping pool (through shared memory), padding (row staging) and none
// (flat staging), odd batches. A configuration that does not take a shape must decline it, not run it wrongly.
TEST_CASE("cuda FusedConv: every stacked configuration matches the CPU in every Tensor Core mode") {
  IE_REQUIRE_GPU();
  const std::vector<FusedCase> cases = {
      {{1, 1, 86, 86}, 4, 7, 0, 2, 2},     // conv1, batch 1 (kp 4: rows combined across lanes)
      {{1001, 1, 86, 86}, 4, 7, 0, 2, 2},  // conv1, odd large batch
      {{7, 4, 40, 40}, 16, 7, 0, 4, 4},    // conv2 (kp 16: window over row blocks)
      {{5, 3, 13, 11}, 5, 3, 1, 2, 2},     // kp 8: window rows inside the lane; padding 1
      {{2, 2, 23, 19}, 2, 5, 0, 2, 2},     // kp 2
      {{3, 1, 21, 37}, 1, 3, 1, 4, 4},     // kp 1, window 4
      {{2, 2, 20, 21}, 16, 3, 1, 2, 2},    // kp 16, window 2
      {{2, 1, 17, 19}, 12, 5, 2, 0, 0},    // no pool
      {{2, 2, 19, 23}, 2, 5, 0, 3, 2},     // overlapping pool: the shared-memory epilogue
  };
  const char* configs[] = {"stk_w4_n5_px3200", "stk_w5_n5_px3200", "stk_w4_n4_px1024", "stk_w8_n5_px6400",
                           "stk_w8_n4_px4096", "stk_w4_n4_px512",  "stk_w4_n2_px1024", "stk_w8_n2_px6400",
                           "stk_w4_n5_px640",  "stk_w4_n5_px320"};
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::tf32})
    for (const FusedCase& c : cases) {
      const std::string what = describe(c);
      const std::vector<Tensor> in = inputs_of(c, what);
      const Graph g = graph_of(c, in, "stacked");
      const std::vector<Tensor> want = run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in[0]}});
      const bool taken = stacked_takes(c, p);
      for (const char* config : configs) {
        INFO(what, " in ", precision_name(p), " with ", config);
        ScopedEnv env("IE_FUSED_CONV_CONFIG", config);
        if (!taken) {  // declined: the reference set takes an unpooled node; a pooled one has no other kernel
          std::string set;
          try {
            set = served_by(g, c.x, p);
          } catch (const Error& e) {
            CHECK(std::string(e.what()).find("is not a configuration for this shape") != std::string::npos);
            continue;
          }
          CHECK(set == kernel_set::kCudaReference);
          continue;
        }
        CHECK(served_by(g, c.x, p) == kernel_set::kCuda);
        check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", in[0]}}), want, tolerance_of(p));
      }
    }
}

namespace {

// A case for a configuration forced on it: whether the configuration takes the shape.
struct ForcedCase {
  FusedCase c;
  bool taken;
};

// Each configuration forced on each case in each of `modes` (`tag` names the graphs). A case it does not take is
// declined (another kernel set, the node's parts, or no kernel: pooled, nothing else); one it takes matches the CPU,
// and at a batch above 1 a NaN put in image 1 stays there and reaches every output the CPU's does (the zero
// weights of padded taps may carry it one output further), then finite inputs match within the mode's tolerance
// (or `tol` where given). `through_identity`: see graph_of.
void check_forced_configs(const std::vector<ForcedCase>& cases, const std::vector<const char*>& configs,
                          const std::string& tag,
                          const std::vector<Precision>& modes = {Precision::bf16, Precision::fp16},
                          std::optional<Tolerance> tol = std::nullopt, bool through_identity = false) {
  for (Precision p : modes)
    for (const ForcedCase& fcase : cases) {
      const FusedCase& c = fcase.c;
      const std::string what = describe(c);
      std::vector<Tensor> in = inputs_of(c, what);
      if (fcase.taken && c.x[0] > 1) in[0].data_as<float>()[in[0].numel() / c.x[0] + 7] = NAN;  // image 1 only
      const Graph g = graph_of(c, in, tag, through_identity);
      const std::vector<Tensor> want = run_graph_on(Path{kernel_set::kCpu}, g, {{"x", in[0]}});
      for (const char* config : configs) {
        INFO(what, " in ", precision_name(p), " with ", config);
        ScopedEnv env("IE_FUSED_CONV_CONFIG", config);
        if (!fcase.taken) {
          std::string set;
          try {
            set = served_by(g, c.x, p);
          } catch (const Error&) {
            continue;
          }
          CHECK(set != kernel_set::kCuda);
          continue;
        }
        CHECK(served_by(g, c.x, p) == kernel_set::kCuda);
        const std::vector<Tensor> got = run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", in[0]}});
        if (c.x[0] == 1) {
          check_outputs_match(got, want, tol.value_or(tolerance_of(p)));
          continue;
        }
        const Tensor y = convert_floats(got[0], DType::Float32), ref = convert_floats(want[0], DType::Float32);
        const int64_t per_image = y.numel() / c.x[0];
        int64_t nan_lost = 0, nan_outside = 0;
        for (int64_t i = 0; i < y.numel(); ++i) {
          const bool a = std::isnan(y.data_as<float>()[i]), b = std::isnan(ref.data_as<float>()[i]);
          nan_lost += b && !a;
          nan_outside += a && i / per_image != 1;
        }
        CHECK(nan_lost == 0);
        CHECK(nan_outside == 0);
        std::vector<Tensor> finite_in = inputs_of(c, what);
        const Graph g2 = graph_of(c, finite_in, tag + "_finite", through_identity);
        check_outputs_match(run_graph_on(Path{kernel_set::kCuda, "", p}, g2, {{"x", finite_in[0]}}),
                            run_graph_on(Path{kernel_set::kCpu}, g2, {{"x", finite_in[0]}}),
                            tol.value_or(tolerance_of(p)));
      }
    }
}

}  // namespace

// The shared-rows plans (a pool window's conv rows computed together from shared B loads): 9..16 channels, 5x5
// or 7x7 kernels, 2x2 or 4x4 pools, up to 4 input channels; other shapes are declined. Each configuration forced
// on odd batches, padding (row staging) and none (flat staging), and a NaN kept inside its image.
const std::vector<ForcedCase> kSharedRowsCases = {
    {{{1, 4, 40, 40}, 16, 7, 0, 4, 4}, true},     // conv2, batch 1
    {{{1001, 4, 40, 40}, 16, 7, 0, 4, 4}, true},  // conv2, odd large batch
    {{{5, 3, 23, 27}, 12, 5, 0, 4, 4}, true},     // 5x5, pool 4 with a floor
    {{{3, 1, 19, 21}, 9, 5, 2, 2, 2}, true},      // pool 2, padding 2
    {{{2, 2, 30, 26}, 10, 7, 3, 4, 4}, true},     // 7x7 with padding 3
    {{{2, 1, 86, 86}, 4, 7, 0, 2, 2}, false},     // conv1: 4 channels
    {{{2, 5, 20, 20}, 16, 5, 0, 2, 2}, false},    // 5 input channels
    {{{2, 2, 20, 21}, 16, 3, 1, 2, 2}, false},    // 3x3
    {{{2, 1, 17, 19}, 12, 5, 2, 0, 0}, false},    // no pool
};
const std::vector<const char*> kSharedRowsConfigs = {"shr_w4_n4_px1024", "shr_w4_n4_px512", "shr_w4_n4_px256",
                                                     "shr_w4_n4_px128"};

TEST_CASE("cuda FusedConv: every shared-rows configuration matches the CPU in fp16 and bf16") {
  IE_REQUIRE_GPU();
  check_forced_configs(kSharedRowsCases, kSharedRowsConfigs, "shared");
}

// The warpgroup-MMA kernel (fused_conv_wgmma.cuh: 16-bit input of the product's type, up to 16 output channels,
// 2x2 or 4x4 pools of their own stride, up to 64 kept columns, no padding), behind an identity convolution so that the
// node reads the mode's 16-bit type as the conv net's conv2 does.
TEST_CASE("cuda FusedConv: every warpgroup-MMA configuration matches the CPU in fp16 and bf16") {
  IE_REQUIRE_GPU();
  check_forced_configs(
      {
          {{{1, 4, 40, 40}, 16, 7, 0, 4, 4}, true},     // conv2, batch 1
          {{{1001, 4, 40, 40}, 16, 7, 0, 4, 4}, true},  // conv2, odd large batch
          {{{5, 3, 23, 27}, 12, 5, 0, 4, 4}, true},     // 5x5, pool 4 with a floor, 12 channels
          {{{3, 4, 31, 29}, 16, 7, 0, 2, 2}, true},     // pool 2, odd width: element loads
          {{{2, 1, 70, 67}, 8, 7, 0, 2, 2}, true},      // 64 kept columns, one input channel
          {{{7, 2, 12, 12}, 6, 3, 0, 2, 2}, true},      // 3x3, several images a tile
          {{{2, 4, 40, 40}, 20, 7, 0, 4, 4}, false},    // 20 output channels
          {{{2, 4, 40, 40}, 16, 7, 1, 4, 4}, false},    // padding
          {{{2, 4, 40, 40}, 16, 7, 0, 3, 2}, false},    // overlapping pool
          {{{2, 1, 86, 86}, 4, 7, 0, 2, 2}, false},     // 80 kept columns
      },
      {"wg_m64n64", "wg_m64n64_s1"}, "wgmma", {Precision::bf16, Precision::fp16}, std::nullopt, true);
}

// The wgmma pixels-on-M kernel (fused_conv_wgmma_pixels.cuh: 16-bit input of the product's type, up to 8 input and
// 16 output channels, 2x2 or 4x4 pools of their own stride, padding, images up to 64 KB staged), behind an identity
// convolution as above: 4 and 8 staged channels, 16 and 32 product columns, several column blocks, batch 1 (tiles
// of one image over several CTAs) and a large odd batch (whole images a CTA).
TEST_CASE("cuda FusedConv: every wgmma pixels-on-M configuration matches the CPU in fp16 and bf16") {
  IE_REQUIRE_GPU();
  check_forced_configs(
      {
          {{{1, 4, 40, 40}, 16, 7, 0, 4, 4}, true},     // conv2, batch 1
          {{{1001, 4, 40, 40}, 16, 7, 0, 4, 4}, true},  // conv2, odd large batch
          {{{5, 3, 23, 27}, 12, 5, 0, 4, 4}, true},     // 5x5, pool 4 with a floor, 3 channels staged as 4
          {{{3, 4, 31, 29}, 16, 7, 0, 2, 2}, true},     // pool 2, odd width: element loads
          {{{2, 1, 70, 67}, 8, 7, 0, 2, 2}, true},      // 3 column blocks, one input channel, N = 16
          {{{2, 2, 30, 26}, 10, 7, 3, 4, 4}, true},     // padding 3
          {{{3, 8, 20, 22}, 8, 3, 1, 2, 2}, true},      // 8 input channels (one tap a chunk), padding 1
          {{{2, 6, 21, 19}, 16, 5, 2, 4, 4}, true},     // 6 input channels, 15 k-steps
          {{{2, 4, 40, 40}, 20, 7, 0, 4, 4}, false},    // 20 output channels
          {{{2, 9, 20, 20}, 16, 3, 0, 2, 2}, false},    // 9 input channels
          {{{2, 8, 20, 20}, 16, 7, 0, 2, 2}, false},    // 28 k-steps
          {{{2, 4, 40, 40}, 16, 7, 0, 3, 2}, false},    // overlapping pool
          {{{1, 4, 120, 120}, 16, 7, 0, 2, 2}, false},  // an image over 64 KB staged
      },
      {"wgpx_1wg", "wgpx_2wg"}, "wgmma_pixels", {Precision::bf16, Precision::fp16}, std::nullopt, true);
}

// tf32 mode: the shared-rows plans as split bf16 products (hi and lo words, the lo weights in shared memory), float32
// in and out, on the same shapes: within 1e-4 of the CPU's fp32 (see the pool-on-M kernel's split test).
TEST_CASE("cuda FusedConv: the shared-rows plans' split products in tf32 match the CPU's fp32 within 1e-4") {
  IE_REQUIRE_GPU();
  check_forced_configs(kSharedRowsCases, kSharedRowsConfigs, "shared_tf32", {Precision::tf32}, Tolerance{1e-4, 1e-4});
}

// The pool-on-M kernel (up to 4 output channels, a 2x2 pool of stride 2, no padding, kernels up to 7x7): each
// configuration forced on the conv net's conv1 at batches 1 and 1001, odd shapes (several input channels, 3x3 to
// 7x7 kernels, even kernels, a floor pool) with a NaN kept inside its image; other shapes are declined.
TEST_CASE("cuda FusedConv: every pool-on-M configuration matches the CPU in fp16 and bf16") {
  IE_REQUIRE_GPU();
  check_forced_configs(
      {
          {{{1, 1, 86, 86}, 4, 7, 0, 2, 2}, true},     // conv1, batch 1
          {{{1001, 1, 86, 86}, 4, 7, 0, 2, 2}, true},  // conv1, odd large batch
          {{{5, 2, 20, 21}, 4, 3, 0, 2, 2}, true},     // 3x3, odd width
          {{{3, 1, 33, 29}, 3, 5, 0, 2, 2}, true},     // 5x5, floor pool
          {{{2, 4, 30, 30}, 4, 6, 0, 2, 2}, true},     // even kernel, 4 input channels (16 k-steps)
          {{{2, 3, 17, 40}, 2, 7, 0, 2, 2}, true},     // 3 input channels
          {{{2, 1, 86, 86}, 5, 7, 0, 2, 2}, false},    // 5 output channels
          {{{2, 1, 30, 30}, 4, 5, 1, 2, 2}, false},    // padding
          {{{2, 1, 30, 30}, 4, 5, 0, 4, 4}, false},    // 4x4 pool
          {{{2, 1, 17, 19}, 4, 5, 0, 0, 0}, false},    // no pool
      },
      {"poolm_w4_n5", "poolm_w8_n5", "poolm_w4_n5_r4"}, "poolm");
  // Bulk staging (one copy per float32 image, the next in flight) takes images of whole 16-byte chunks.
  check_forced_configs(
      {
          {{{1, 1, 86, 86}, 4, 7, 0, 2, 2}, true},     // conv1, batch 1
          {{{1001, 1, 86, 86}, 4, 7, 0, 2, 2}, true},  // conv1, odd large batch (one image in flight per CTA)
          {{{5, 2, 20, 21}, 4, 3, 0, 2, 2}, true},     // 3x3, odd width: staged rows padded (not flat)
          {{{2, 4, 30, 30}, 4, 6, 0, 2, 2}, true},     // even kernel, 4 input channels
          {{{3, 4, 23, 54}, 2, 6, 0, 2, 2}, true},     // flat, more staged rows than the image has
          {{{3, 1, 33, 29}, 3, 5, 0, 2, 2}, false},    // 3828 bytes an image: not whole chunks
      },
      {"poolm_w4_n5_bulk", "poolm_w8_n5_bulk"}, "poolm_bulk");
}

// tf32 mode: the pool-on-M kernel's products split in hi and lo bf16 (three MMAs a k-step) for shapes of at most 8
// k-steps; float32 in and out. The split keeps about 16 bits of each operand, so each configuration matches the
// CPU's fp32 within 1e-4 (one TF32 rounding of inputs and weights is ~1e-3 here; tf32's own tolerance is 1e-2).
TEST_CASE("cuda FusedConv: the pool-on-M kernel's split products in tf32 match the CPU's fp32 within 1e-4") {
  IE_REQUIRE_GPU();
  const std::vector<ForcedCase> cases = {
      {{{1, 1, 86, 86}, 4, 7, 0, 2, 2}, true},     // conv1, batch 1
      {{{1001, 1, 86, 86}, 4, 7, 0, 2, 2}, true},  // conv1, odd large batch
      {{{5, 2, 20, 21}, 4, 3, 0, 2, 2}, true},     // 3x3, odd width, 2 input channels
      {{{3, 1, 33, 29}, 3, 5, 0, 2, 2}, true},     // 5x5, floor pool
      {{{2, 2, 30, 30}, 4, 6, 0, 2, 2}, true},     // even kernel, 8 k-steps
      {{{2, 4, 30, 30}, 4, 6, 0, 2, 2}, false},    // 16 k-steps: more hi and lo weights than registers hold
      {{{2, 1, 30, 30}, 4, 5, 1, 2, 2}, false},    // padding
  };
  const Tolerance split{1e-4, 1e-4};
  check_forced_configs(cases, {"poolm_w4_n5", "poolm_w8_n5", "poolm_w4_n5_r4"}, "poolm_tf32", {Precision::tf32}, split);
  check_forced_configs({cases[0], cases[1], cases[4]},
                       {"poolm_w4_n5_bulk", "poolm_w8_n5_bulk", "poolm_w8_n5_bulk_2cta", "poolm_w8_n3_bulk"},
                       "poolm_bulk_tf32", {Precision::tf32}, split);
}

// A NaN in the input reaches the pooled outputs over it (max and ReLU keep NaN, as the unfused ops do) and no other
// image's outputs.
TEST_CASE("cuda FusedConv keeps NaN through the pool and ReLU in every configuration") {
  IE_REQUIRE_GPU();
  const FusedCase c{{3, 1, 86, 86}, 4, 7, 0, 2, 2};
  std::vector<Tensor> in = inputs_of(c, "nan");
  in[0].data_as<float>()[86 * 86 + 40 * 86 + 40] = NAN;  // image 1, row 40, column 40
  const Graph g = graph_of(c, in, "nan");
  for (const char* config :
       {"stk_w4_n4_px1024", "stk_w8_n5_px6400", "w8_m4_px1024", "w4_m2_px512", "w8_m4_px1024_rows", "w4_m2_px512_rows",
        "poolm_w4_n5", "poolm_w4_n5_r4", "poolm_w4_n5_bulk", "cols_r16_w8_px1024", "cols_r8_w4_px3200"})
    for (Precision p : {Precision::bf16, Precision::fp32}) {
      if (p == Precision::fp32 && (config[0] == 's' || config[0] == 'p')) continue;  // Tensor Core kernels
      const bool fp32_only = std::string(config).find("_rows") != std::string::npos || config[0] == 'c';
      if (p != Precision::fp32 && fp32_only) continue;
      INFO(config, " in ", precision_name(p));
      ScopedEnv env("IE_FUSED_CONV_CONFIG", config);
      const std::vector<int64_t> nan_in =
          nans_per_image(run_graph_on(Path{kernel_set::kCuda, "", p}, g, {{"x", in[0]}})[0]);
      CHECK(nan_in[0] == 0);
      CHECK(nan_in[1] > 0);
      CHECK(nan_in[2] == 0);
    }
}

}  // namespace ie::test
