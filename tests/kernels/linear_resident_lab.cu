// Lab for the strict-fp32 Linear with W resident in shared memory (layers/linear/linear_ffma_resident.cuh): a
// float64 CPU reference, validation on odd shapes (rows 1, 7, 129, 5121; K and N multiples of 4 that are not of the
// tiles; one or three outputs; the LayerNorm prologue with and without its activation; every activation; the
// residual), then timings of the SSA's fp32 products at 655,360 rows (batch 65536 x 10 slices) and 40,960 (4096)
// against the per-block FFMA kernel (layers/linear/linear_ffma.cuh), in TFLOP/s and GB/s against the H200's
// peaks (67 TFLOP/s of FFMA, ~4.2 TB/s).
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
//        tests/kernels/linear_resident_lab.cu -o linear_resident_lab
// Run:  ./linear_resident_lab [--check-only] [--no-validate] [--filter S] [--csv PATH]
//
// Measured, not shipped: every form lost to the per-block kernel, so the engine keeps linear_ffma.cuh (figures on an
// H100, one call each, ms at 655,360 rows; tools/results/h200/linear_resident/call_a/, call_b/; the checks pass,
// relative error <= 1.1e-5 against float64 at odd shapes, the LayerNorm prologue and three outputs included):
//   a. 4 columns per thread (BM 64 / 128: 128 / 256 threads, 90-113 registers, 2-5 CTAs per SM), K at run time or
//      compiled in: q 64->64 0.224 / 0.228 / 0.217 against the per-block kernel's 0.194; fc1 64->128 + GELU
//      0.481-0.537 against 0.421; fc2 128->64 + residual 0.524-0.706 against 0.332; out 64->32 0.214-0.236 against
//      0.176. q | k | v as one product into three outputs 0.82-0.86, against three per-block products (3 x 0.194):
//      reading A once does not pay when the product is not memory-bound. The LayerNorm prologue adds 0.10-0.13 ms
//      to it (LN + q|k|v 0.92-0.99): as much as the LayerNorm's own pass (0.083 on an H200), since its statistics
//      and the normalized tile go through shared memory between two more barriers with 8-16 warps per SM.
//   b. 8 columns per thread (BM 128 / 256, 166-205 registers): twice as slow (q 0.40 / 0.43 ms; K compiled in
//      0.74-0.76). ncu on q: the per-block kernel 65.8% of issue slots busy, 2.37 eligible warps per scheduler,
//      36.7% achieved occupancy; bm128t8 with K = 64 compiled in 15.1% busy, 0.20 eligible warps, 12.2%
//      occupancy, 12.8 cycles per issued instruction: its unrolled k loop (16 steps of 16 shared loads and 256
//      FFMAs per 64-column chunk) streams through the instruction cache once per tile.
//   What the per-block kernel has that these lack: 2-3 CTAs of 8 warps per SM with a 560-instruction loop body
//   that stays in the instruction cache. Strict fp32 at 65536 (4.5 ms) needs fewer passes over memory, not this
//   kernel: the per-op profile's LayerNorms (0.6 ms) and attention (0.6 ms) are bandwidth-bound passes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "layers/linear/linear_ffma.cuh"
#include "layers/linear/linear_ffma_resident.cuh"
#include "tests/kernels/lab_util.cuh"

namespace {

using ie::dev::Act;
using lab::DeviceBuf;
namespace rs = ie::lin::ffma_rs;

std::unique_ptr<DeviceBuf> upload(const std::vector<float>& v) {
  auto b = std::make_unique<DeviceBuf>(v.size() * sizeof(float));
  CUDA_CHECK(cudaMemcpy(b->p, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
  return b;
}

// W [K, N] as the kernels read it: [kp, np] row-major, zero-padded (the resident kernel: kp = k; the per-block
// kernel: kp = k rounded up to 16); np = n rounded up to 64 for both.
std::vector<float> pack_w(const std::vector<float>& w, int k, int n, int kp) {
  return lab::zero_padded(w, k, n, kp, rs::padded_n(n));
}

// One configuration of the resident kernel, prepared once.
struct Variant {
  const char* name;
  int bm, kc;
  bool norm;
  cudaError_t (*launch)(const rs::Params&, int, cudaStream_t);
  int (*per_sm)(size_t);
};
template <int BM, int KC, bool N, int TN = 4>
Variant variant(const char* name) {
  return {name, BM, KC, N, rs::launch<BM, KC, N, TN>, rs::ctas_per_sm<BM, KC, N, TN>};
}

// Launches variant v on p (picking the grid from its occupancy); returns false when it does not fit.
bool run_variant(const Variant& v, const rs::Params& p, cudaStream_t s) {
  const int per_sm = v.per_sm(rs::smem_bytes(v.bm, p.k, p.n, v.norm));
  if (per_sm == 0) return false;
  CUDA_CHECK(v.launch(p, per_sm * lab::sms(), s));
  return true;
}

// The runtime-K variants, which every shape can take: 4 columns per thread (BM 64, 128) or 8 (BM 128, 256).
Variant runtime_variant(int bm, bool norm, int tn = 4) {
  if (tn == 8) {
    if (bm == 128) return norm ? variant<128, 0, true, 8>("bm128t8") : variant<128, 0, false, 8>("bm128t8");
    return norm ? variant<256, 0, true, 8>("bm256t8") : variant<256, 0, false, 8>("bm256t8");
  }
  if (bm == 64) return norm ? variant<64, 0, true>("bm64") : variant<64, 0, false>("bm64");
  return norm ? variant<128, 0, true>("bm128") : variant<128, 0, false>("bm128");
}

struct Case {
  int64_t rows;
  int k, n, outputs;
  Act act;
  bool residual, norm;
  Act norm_act;
};

int check_case(const Variant& v, const Case& c, unsigned seed) {
  std::mt19937 rng(seed);
  const float r = 1.f / std::sqrt(static_cast<float>(c.k));
  std::uniform_real_distribution<float> ua(-1.f, 1.f), uw(-r, r), ub(-0.3f, 0.3f), ug(0.5f, 1.5f);
  std::vector<float> a(c.rows * c.k), w(static_cast<size_t>(c.k) * c.n), b(c.n), res(c.rows * c.n), g(c.k), be(c.k);
  for (float& x : a) x = ua(rng) + 0.5f;  // a mean away from zero: the LayerNorm's subtraction matters
  for (float& x : w) x = uw(rng);
  for (float& x : b) x = ub(rng);
  for (float& x : res) x = ua(rng);
  for (float& x : g) x = ug(rng);
  for (float& x : be) x = ub(rng);
  auto da = upload(a), dw = upload(pack_w(w, c.k, c.n, c.k)), db = upload(b), dr = upload(res), dg = upload(g),
       dbe = upload(be);
  const int seg = c.n / c.outputs;
  std::vector<std::unique_ptr<DeviceBuf>> dy;
  rs::Params p;
  p.a = static_cast<const float*>(da->p), p.w = static_cast<const float*>(dw->p);
  p.bias = static_cast<const float*>(db->p);
  p.residual = c.residual ? static_cast<const float*>(dr->p) : nullptr;
  p.outputs = c.outputs, p.seg = seg, p.rows = c.rows, p.k = c.k, p.n = c.n, p.np = rs::padded_n(c.n), p.act = c.act;
  if (c.norm) p.gamma = static_cast<const float*>(dg->p), p.beta = static_cast<const float*>(dbe->p);
  p.norm_act = c.norm_act;
  for (int o = 0; o < c.outputs; ++o) {
    dy.push_back(std::make_unique<DeviceBuf>(c.rows * seg * sizeof(float)));
    CUDA_CHECK(cudaMemset(dy.back()->p, 0xff, c.rows * seg * sizeof(float)));
    p.y[o] = static_cast<float*>(dy.back()->p);
  }
  if (!run_variant(v, p, 0)) {
    printf("SKIP %-6s %6lldx%-4d -> %-4d: does not fit in shared memory\n", v.name, static_cast<long long>(c.rows), c.k,
           c.n);
    return 0;
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::vector<float>> y(c.outputs, std::vector<float>(c.rows * seg));
  for (int o = 0; o < c.outputs; ++o)
    CUDA_CHECK(cudaMemcpy(y[o].data(), dy[o]->p, y[o].size() * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  std::vector<double> an(c.k);
  for (int64_t i = 0; i < c.rows; ++i) {
    for (int q = 0; q < c.k; ++q) an[q] = a[i * c.k + q];
    if (c.norm) {
      double mean = 0, var = 0;
      for (double x : an) mean += x;
      mean /= c.k;
      for (double x : an) var += (x - mean) * (x - mean);
      const double rstd = 1 / std::sqrt(var / c.k + 1e-5);
      for (int q = 0; q < c.k; ++q) an[q] = lab::activation_ref(c.norm_act, (an[q] - mean) * rstd * g[q] + be[q]);
    }
    for (int j = 0; j < c.n; ++j) {
      double acc = b[j];
      for (int q = 0; q < c.k; ++q) acc += an[q] * w[static_cast<size_t>(q) * c.n + j];
      double want = lab::activation_ref(c.act, acc);
      if (c.residual) want += res[i * c.n + j];
      const float got = y[j / seg][i * seg + j % seg];
      const double err = std::fabs(got - want) / (0.05 + std::fabs(want));
      worst = std::isnan(err) ? 1e30 : std::max(worst, err);
    }
  }
  const double tol = c.k * 6e-8 + 1e-5;  // fp32 accumulation over K, GELU's erf approximation
  const bool ok = worst <= tol;
  printf("%s %-6s %6lldx%-4d -> %-4d (%d out) act %d%s%s  max rel err %.2e (tol %.2e)\n", ok ? "PASS" : "FAIL", v.name,
         static_cast<long long>(c.rows), c.k, c.n, c.outputs, static_cast<int>(c.act), c.residual ? " +residual" : "",
         c.norm ? (c.norm_act == Act::None ? " LN" : " LN+act") : "", worst, tol);
  return ok ? 0 : 1;
}

int validate() {
  const Case cases[] = {
      {5121, 64, 192, 3, Act::None, false, true, Act::None},     {7, 64, 64, 1, Act::Gelu, true, false, Act::None},
      {1, 32, 64, 1, Act::None, false, true, Act::Gelu},         {129, 128, 64, 1, Act::None, true, true, Act::None},
      {257, 36, 68, 1, Act::Relu, false, true, Act::Relu},       {1000, 12, 24, 2, Act::Tanh, false, false, Act::None},
      {5121, 32, 640, 1, Act::Sigmoid, false, false, Act::None}, {63, 64, 32, 1, Act::GeluTanh, true, true, Act::Gelu},
      {65, 8, 12, 3, Act::Gelu, false, true, Act::None},         {4097, 64, 128, 1, Act::Gelu, false, true, Act::None},
  };
  int failures = 0;
  unsigned seed = 1;
  for (int bm : {64, 128})
    for (const Case& c : cases) failures += check_case(runtime_variant(bm, c.norm), c, seed++);
  for (int bm : {128, 256})
    for (const Case& c : cases) failures += check_case(runtime_variant(bm, c.norm, 8), c, seed++);
  // the compile-time K forms on the SSA's widths
  failures += check_case(variant<128, 64, true>("bm128k64"), {5121, 64, 192, 3, Act::None, false, true, Act::None}, 91);
  failures += check_case(variant<64, 128, false>("bm64k128"), {129, 128, 64, 1, Act::None, true, false, Act::None}, 92);
  failures += check_case(variant<128, 32, false>("bm128k32"), {77, 32, 640, 1, Act::Gelu, false, false, Act::None}, 93);
  failures +=
      check_case(variant<128, 64, true, 8>("bm128t8k64"), {5121, 64, 192, 3, Act::None, false, true, Act::None}, 94);
  failures +=
      check_case(variant<128, 128, false, 8>("bm128t8k128"), {129, 128, 64, 1, Act::None, true, false, Act::None}, 95);
  return failures;
}

struct Prod {
  const char* name;
  int k, n, outputs;
  Act act;
  bool residual, norm;
};

void time_all(const std::string& filter, FILE* csv) {
  const Prod prods[] = {
      {"embed 32->64", 32, 64, 1, Act::None, false, false},
      {"q 64->64", 64, 64, 1, Act::None, false, false},
      {"proj 64->64 +res", 64, 64, 1, Act::None, true, false},
      {"qkv 64->192 (3 out)", 64, 192, 3, Act::None, false, false},
      {"LN+qkv 64->192 (3 out)", 64, 192, 3, Act::None, false, true},
      {"fc1 64->128+gelu", 64, 128, 1, Act::Gelu, false, false},
      {"LN+fc1 64->128+gelu", 64, 128, 1, Act::Gelu, false, true},
      {"fc2 128->64 +res", 128, 64, 1, Act::None, true, false},
      {"out 64->32", 64, 32, 1, Act::None, false, false},
      {"decode 32->640 (rows/10)", 32, 640, 1, Act::None, false, false},
  };
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  if (csv) fprintf(csv, "rows,product,kernel,ms,tflops,gbps\n");
  for (int64_t rows0 : {int64_t(655360), int64_t(40960)})
    for (const Prod& pr : prods) {
      const int64_t rows = std::string(pr.name).find("rows/10") != std::string::npos ? rows0 / 10 : rows0;
      constexpr int kBuffers = 3;
      std::vector<std::unique_ptr<DeviceBuf>> as;
      std::vector<float> host(rows * pr.k);
      for (int b = 0; b < kBuffers; ++b) {
        for (size_t i = 0; i < host.size(); ++i) host[i] = std::sin(0.001f * i + b);
        as.push_back(upload(host));
      }
      std::vector<float> w(static_cast<size_t>(pr.k) * pr.n, 0.01f), bias(pr.n, 0.1f), g(pr.k, 1.f), be(pr.k, 0.f);
      auto dw = upload(pack_w(w, pr.k, pr.n, pr.k)), dwo = upload(pack_w(w, pr.k, pr.n, ie::lin::ffma::padded_k(pr.k))),
           db = upload(bias), dg = upload(g), dbe = upload(be);
      DeviceBuf y(rows * pr.n * sizeof(float)), res(rows * pr.n * sizeof(float));
      CUDA_CHECK(cudaMemset(res.p, 0, rows * pr.n * sizeof(float)));
      const double flops = 2.0 * rows * pr.k * pr.n;
      const double bytes = double(rows) * (pr.k + pr.n * (pr.residual ? 2 : 1)) * sizeof(float);
      auto report = [&](const char* kernel, float ms) {
        const std::string name = std::to_string(rows) + " " + pr.name + " " + kernel;
        const double tflops = flops / (ms * 1e-3) / 1e12, gbps = bytes / (ms * 1e-3) / 1e9;
        printf("rows %7lld  %-26s %-10s %8.4f ms  %6.1f TFLOP/s (%4.1f%% of 67)  %6.0f GB/s (%4.1f%% of 4200)\n",
               static_cast<long long>(rows), pr.name, kernel, ms, tflops, 100 * tflops / 67, gbps, 100 * gbps / 4200);
        if (csv)
          fprintf(csv, "%lld,%s,%s,%.5f,%.2f,%.1f\n", static_cast<long long>(rows), pr.name, kernel, ms, tflops, gbps);
        fflush(stdout);
      };
      const std::string tag = std::to_string(rows) + " " + pr.name;
      if (!filter.empty() && tag.find(filter) == std::string::npos) continue;
      if (pr.outputs == 1 && !pr.norm) {  // the per-block kernel, for the ratio
        ie::lin::ffma::Params p;
        p.w = static_cast<const float*>(dwo->p), p.bias = static_cast<const float*>(db->p);
        p.residual = pr.residual ? static_cast<const float*>(res.p) : nullptr;
        p.y = static_cast<float*>(y.p), p.rows = rows, p.k = pr.k, p.n = pr.n;
        p.kp = ie::lin::ffma::padded_k(pr.k), p.np = ie::lin::ffma::padded_n(pr.n), p.act = pr.act;
        report("per-block", lab::median_ms(
                                [&](int i) {
                                  p.a = static_cast<const float*>(as[i % kBuffers]->p);
                                  CUDA_CHECK(ie::lin::ffma::launch(p, stream));
                                },
                                stream));
      }
      // (call_a: 4 columns per thread lost to the per-block kernel everywhere; compile-time K within noise)
      std::vector<Variant> vs = {runtime_variant(64, pr.norm), runtime_variant(128, pr.norm, 8),
                                 runtime_variant(256, pr.norm, 8)};
      if (pr.k == 64)
        for (const Variant& v : pr.norm ? std::vector<Variant>{variant<128, 64, true, 8>("bm128t8k64"),
                                                               variant<256, 64, true, 8>("bm256t8k64")}
                                        : std::vector<Variant>{variant<128, 64, false, 8>("bm128t8k64"),
                                                               variant<256, 64, false, 8>("bm256t8k64")})
          vs.push_back(v);
      if (pr.k == 128) vs.push_back(variant<128, 128, false, 8>("bm128t8k128"));
      if (pr.k == 32) vs.push_back(variant<128, 32, false, 8>("bm128t8k32"));
      for (const Variant& v : vs) {
        rs::Params p;
        p.w = static_cast<const float*>(dw->p), p.bias = static_cast<const float*>(db->p);
        p.residual = pr.residual ? static_cast<const float*>(res.p) : nullptr;
        const int seg = pr.n / pr.outputs;
        for (int o = 0; o < pr.outputs; ++o) p.y[o] = static_cast<float*>(y.p) + o * rows * seg;
        p.outputs = pr.outputs, p.seg = seg, p.rows = rows, p.k = pr.k, p.n = pr.n, p.np = rs::padded_n(pr.n);
        p.act = pr.act;
        if (pr.norm) p.gamma = static_cast<const float*>(dg->p), p.beta = static_cast<const float*>(dbe->p);
        const int per_sm = v.per_sm(rs::smem_bytes(v.bm, pr.k, pr.n, v.norm));
        if (per_sm == 0) continue;
        char name[32];
        snprintf(name, sizeof name, "%s x%d", v.name, per_sm);
        report(name, lab::median_ms(
                         [&](int i) {
                           p.a = static_cast<const float*>(as[i % kBuffers]->p);
                           CUDA_CHECK(v.launch(p, per_sm * lab::sms(), stream));
                         },
                         stream));
      }
    }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_lab(argc, argv, validate, [](const std::string& filter, FILE* csv) {
    printf("== timing: median of 50 launches after 5 warm-ups, inputs rotated over 3 buffers ==\n");
    time_all(filter, csv);
  });
}
