// Lab for the fused set's ie.Linear kernels: WMMA in fp16 and bf16 (layers/linear/linear_fused.cuh), FFMA in strict
// fp32 (layers/linear/linear_ffma.cuh): a float64 CPU reference, validation on odd shapes (rows 1, 7, 5121; K and N
// not multiples of the tiles; misaligned A for WMMA) with every activation and a residual, then timings of the
// SSA's products at batch 512 and 65536 (rows = batch x 10, or batch for the latent products) in TFLOP/s and GB/s
// (A read, Y written, W once) against the H200's peaks (790 TFLOP/s of 16-bit Tensor Cores, 67 of FFMA).
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
//        tests/kernels/linear_lab.cu -o linear_lab
// Run:  ./linear_lab [--check-only] [--no-validate] [--filter S] [--csv PATH]
// Exit status: non-zero when a check fails or a CUDA call errs; 0 with a message when there is no GPU.
//
// Measured (H200; keep this current; tools/results/h200/ssa_attention/linear_lab.log), bf16, ms:
//   batch 512 (5120 rows):   32->64 0.006, 64->64 0.0065, 64->128+GELU 0.009, 128->64 0.008, 640->32 (512 rows)
//                            0.014: launch- and latency-bound, 3-11 TFLOP/s.
//   batch 65536 (655360 rows): 64->64 0.084 (2.0 TB/s, 50% of the bandwidth; floor 0.042 ms), 64->128+GELU
//                            0.231, 128->64 0.127, 640->32 0.052, 32->640 0.071; fp16 within a few percent.
// Variants and what was learned:
//   - The first epilogue wrote Y (and read the residual) element by element: 64->64 took 0.191 ms, and with a
//     residual 0.41 (slower than the product plus a separate Add). Eight columns per thread with 16-byte loads and
//     stores: 0.120 ms, and the residual is now nearly free. N not a multiple of 8 keeps the scalar loop.
//   - Grid: one CTA per row tile capped at 1024 per column block gave 0.120 ms for 64->64; sized to fill the device
//     once (resident CTAs x SMs, launch_limits.cuh), so that each CTA stages W once for more tiles: 0.103 ms.
//   - A by 16-byte cp.async into two buffers (the next (tile, chunk) stage in flight during this one's products and
//     epilogue): 64->64 0.103 -> 0.084, 64->128+GELU 0.266 -> 0.231, 128->64 0.166 -> 0.127, 640->32 0.075 -> 0.052.
//   - Still to do toward the floor: the GELU epilogue (64->128+GELU moves 1.5x the bytes of 64->64 in 2.75x the
//     time), W's column block shared across more row tiles, mma.sync fragments instead of WMMA's shared-memory
//     round trip for the accumulators.
//   ptxas: 48-96 registers, no spills.
// Strict fp32 on FFMA (linear_ffma.cuh; tools/results/h200/linear_ffma/call_a/linear_lab.log), ms at 655,360 rows:
//   32->64 0.129, 64->64 0.180 (44% of the FFMA rate), 64->128+GELU 0.415 (against cuBLASLt plus its GELU pass:
//   0.674 in the engine's profile), 128->64 0.294 (55%), out 64->32 0.174 (half the 64-column block is padding;
//   cuBLASLt 0.122), 640->32 at 65,536 rows 0.146 (512 CTAs walk K = 640; cuBLASLt 0.098). At 5,120 rows 0.010 to
//   0.016 ms, latency-bound. Hence the engine takes it only for GELU, Tanh and Sigmoid products (cuBLASLt's second
//   pass) from 32768 rows, where the SSA's whole plan was measured faster (call_e; the per-op profile favoured it
//   from 5,120 rows, call_d and call_d_small, but the plan in its CUDA graph was 2% slower at 5,120).
//   ptxas: 79 registers, 25 KB of static shared memory, no spills.
//   A persistent form with W resident in shared memory (tests/kernels/linear_resident_lab.cu) was slower at every
//   SSA shape; its figures are in that lab.
//   Tried: a LayerNorm staged by this kernel (ie.NormLinear, the SSA's ln2 -> fc1 + GELU as one step; the code is
//   in commit a0e4c37, the figures in tools/results/h200/norm_linear/): a prologue computes each of the CTA's 128
//   rows' mean and 1 / sqrt(var + eps) (two threads a row, two passes), then A is normalized as it is staged.
//   Correct, and slower than the LayerNorm kernel followed by this product (0.491 ms at 655,360 rows): v1, two
//   passes over global memory before the product's loads, 0.618; v2, the row held in registers with every load
//   in flight and the first k-step's loads issued before the statistics, 0.647 at 2 CTAs per SM (115 registers)
//   and 0.594 capped for 3 (32 bytes spilled). The SSA's fp32 plan at 65536: 4.82 ms against 4.48. The prologue is
//   serial in every CTA and repeated by each 64-column block, and the product is latency-bound already; the
//   LayerNorm's own pass costs 0.086 ms.
//   Tried: the LayerNorm in this kernel's epilogue for N <= 64 (ie.LinearNorm: embed, proj and fc2 with the norm
//   that follows; a row's 64 columns in one half-warp, two-pass statistics by shuffles from registers; the code is
//   in merge commit f10dc86, the figures in tools/results/h200/ln_epilogue/). At 655,360 rows the epilogue against
//   this product then the LayerNorm kernel: 0.2185 / 0.2188 (embed), 0.3031 / 0.3072 (proj + ln2), 0.3996 / 0.4039
//   (fc2 + ln1), 0.3858 / 0.4036 (fc2 + enc_norm); in the engine, where the plain products take tuned tiles, each
//   joined step was slower than the two apart (proj + ln2 0.314 against 0.205 + 0.086) and the SSA's fp32 plan at
//   65536 took 4.60 ms against 4.51 (18 steps against 23).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "layers/linear/linear_ffma.cuh"
#include "layers/linear/linear_fused.cuh"
#include "tests/kernels/lab_util.cuh"

namespace {

using ie::lin::Act;

using lab::DeviceBuf;

template <class T>
T to_t(float v);
template <>
__half to_t<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__nv_bfloat16 to_t<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
float to_t<float>(float v) {
  return v;
}
float from_t(__half v) { return __half2float(v); }
float from_t(__nv_bfloat16 v) { return __bfloat162float(v); }
float from_t(float v) { return v; }

template <class T>
const char* type_name() {
  return std::is_same_v<T, float> ? "f32" : std::is_same_v<T, __half> ? "f16" : "bf16";
}

// The padded sizes of W as each kernel reads it.
template <class T>
int padded_k(int k) {
  return std::is_same_v<T, float> ? ie::lin::ffma::padded_k(k) : ie::lin::padded_k(k);
}
template <class T>
int padded_n(int n) {
  return std::is_same_v<T, float> ? ie::lin::ffma::padded_n(n) : ie::lin::padded_n(n);
}

// One product on the kernel of T: FFMA for float, WMMA for the 16-bit types.
template <class T>
cudaError_t launch_product(const T* a, const void* w, const float* bias, const T* residual, T* y, int64_t rows, int k,
                           int n, Act act, cudaStream_t s) {
  if constexpr (std::is_same_v<T, float>) {
    ie::lin::ffma::Params p;
    p.a = a, p.w = static_cast<const float*>(w), p.bias = bias, p.residual = residual, p.y = y;
    p.rows = rows, p.k = k, p.n = n, p.kp = padded_k<T>(k), p.np = padded_n<T>(n), p.act = act;
    return ie::lin::ffma::launch(p, s);
  } else {
    ie::lin::Params p;
    p.a = a, p.w = w, p.bias = bias, p.residual = residual, p.y = y;
    p.rows = rows, p.k = k, p.n = n, p.kp = padded_k<T>(k), p.np = padded_n<T>(n), p.act = act;
    return ie::lin::launch<T>(p, s);
  }
}

// W [K, N] (float, already rounded to T) packed as the kernel reads it: [kp, np] zero-padded.
template <class T>
std::vector<T> pack(const std::vector<float>& w, int k, int n) {
  const int kp = padded_k<T>(k), np = padded_n<T>(n);
  std::vector<T> out(static_cast<size_t>(kp) * np, to_t<T>(0.f));
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < n; ++j) out[static_cast<size_t>(i) * np + j] = to_t<T>(w[static_cast<size_t>(i) * n + j]);
  return out;
}

template <class T>
std::unique_ptr<DeviceBuf> upload(const std::vector<T>& v) {
  auto b = std::make_unique<DeviceBuf>(v.size() * sizeof(T));
  CUDA_CHECK(cudaMemcpy(b->p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return b;
}

// Inputs rounded to T; the reference sees the rounded values, so the error is the kernel's (float accumulation
// order, the output's rounding): tolerance one rounding of Y plus K * 2^-24 relative accumulation error.
template <class T>
int check_case(int64_t rows, int k, int n, Act act, bool residual, bool misalign, unsigned seed) {
  std::mt19937 rng(seed);
  const float r = 1.f / std::sqrt(static_cast<float>(k));
  std::uniform_real_distribution<float> ua(-1.f, 1.f), uw(-r, r), ub(-0.3f, 0.3f);
  std::vector<float> a(rows * k), w(static_cast<size_t>(k) * n), b(n), res(rows * n);
  for (float& v : a) v = from_t(to_t<T>(ua(rng)));
  for (float& v : w) v = from_t(to_t<T>(uw(rng)));
  for (float& v : b) v = ub(rng);
  for (float& v : res) v = from_t(to_t<T>(ua(rng)));
  std::vector<T> at(a.size() + 8), rt(res.size());
  const int off = misalign ? 1 : 0;  // one element past 16-byte alignment: element-wise staging
  for (size_t i = 0; i < a.size(); ++i) at[i + off] = to_t<T>(a[i]);
  for (size_t i = 0; i < res.size(); ++i) rt[i] = to_t<T>(res[i]);
  auto da = upload(at), dw = upload(pack<T>(w, k, n)), dr = upload(rt);
  auto db = upload(b);
  DeviceBuf dy(rows * n * sizeof(T));
  CUDA_CHECK(cudaMemset(dy.p, 0xff, rows * n * sizeof(T)));
  CUDA_CHECK(launch_product<T>(static_cast<const T*>(da->p) + off, dw->p, static_cast<const float*>(db->p),
                               residual ? static_cast<const T*>(dr->p) : nullptr, static_cast<T*>(dy.p), rows, k, n,
                               act, 0));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> y(rows * n);
  CUDA_CHECK(cudaMemcpy(y.data(), dy.p, y.size() * sizeof(T), cudaMemcpyDeviceToHost));
  double worst = 0;
  const double unit = std::is_same_v<T, float> ? 0.0 : std::is_same_v<T, __half> ? 1.0 / 2048 : 1.0 / 256;
  for (int64_t i = 0; i < rows; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = b[j];
      for (int q = 0; q < k; ++q) acc += double(a[i * k + q]) * w[static_cast<size_t>(q) * n + j];
      double want = lab::activation_ref(act, acc);
      if (residual) want += res[i * n + j];
      const double err = std::fabs(from_t(y[i * n + j]) - want) / (0.05 + std::fabs(want));
      worst = std::isnan(err) ? 1e30 : std::max(worst, err);
    }
  // GELU's erfc approximation and __expf: ~1e-6 relative; tanh.approx in GeluTanh's 16-bit paths.
  const double tol = unit + k * 6e-8 + (std::is_same_v<T, float> ? 1e-5 : 2e-4);
  const bool ok = worst <= tol;
  printf("%s %-4s %6lldx%-4d -> %-4d act %d%s%s  max rel err %.2e (tol %.2e)\n", ok ? "PASS" : "FAIL", type_name<T>(),
         static_cast<long long>(rows), k, n, static_cast<int>(act), residual ? " +residual" : "",
         misalign ? " misaligned" : "", worst, tol);
  return ok ? 0 : 1;
}

template <class T>
int validate() {
  int failures = 0;
  unsigned seed = 1;
  struct Shape {
    int64_t rows;
    int k, n;
  };
  const Shape shapes[] = {{5121, 32, 64}, {7, 64, 64},   {1, 64, 128},  {5121, 128, 64}, {7, 640, 32}, {7, 32, 640},
                          {7, 40, 20},    {129, 33, 70}, {1, 1000, 96}, {64, 16, 1},     {65, 8, 33},  {3, 16, 65}};
  const Act acts[] = {Act::None, Act::Gelu, Act::Relu, Act::GeluTanh, Act::Tanh, Act::Sigmoid};
  const bool fp32 = std::is_same_v<T, float>;
  int i = 0;
  for (const Shape& s : shapes) {
    if (!fp32 || ie::lin::ffma::supports(s.k, s.n))  // FFMA: K and N multiples of 4 (others run on cuBLASLt)
      failures += check_case<T>(s.rows, s.k, s.n, acts[i % 6], i % 3 == 1, false, seed++);
    ++i;
  }
  if (fp32) {  // odd multiples of 4, partial 128-row tiles
    failures += check_case<T>(129, 36, 68, Act::Gelu, true, false, seed++);
    failures += check_case<T>(257, 12, 20, Act::Relu, false, false, seed++);
    return failures;
  }
  failures += check_case<T>(37, 64, 64, Act::Gelu, true, true, seed++);
  failures += check_case<T>(37, 24, 40, Act::None, false, true, seed++);
  return failures;
}

template <class T>
void time_shapes(const std::string& filter, FILE* csv) {
  struct Prod {
    const char* name;
    int per_sample;  // rows per sample
    int k, n;
    Act act;
  };
  const Prod prods[] = {{"embed 32->64", 10, 32, 64, Act::None},      {"qkv 64->64", 10, 64, 64, Act::None},
                        {"mlp 64->128+gelu", 10, 64, 128, Act::Gelu}, {"mlp 128->64", 10, 128, 64, Act::None},
                        {"latent 640->32", 1, 640, 32, Act::None},    {"decode 32->640", 1, 32, 640, Act::None},
                        {"out 64->32", 10, 64, 32, Act::None}};
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  for (int batch : {512, 65536})
    for (const Prod& pr : prods) {
      const std::string name = std::string(type_name<T>()) + " batch " + std::to_string(batch) + " " + pr.name;
      if (!filter.empty() && name.find(filter) == std::string::npos) continue;
      const int64_t rows = static_cast<int64_t>(batch) * pr.per_sample;
      constexpr int kBuffers = 3;
      std::vector<std::unique_ptr<DeviceBuf>> as;
      std::vector<T> host(rows * pr.k);
      for (int b = 0; b < kBuffers; ++b) {
        for (size_t i = 0; i < host.size(); ++i) host[i] = to_t<T>(std::sin(0.001f * i + b));
        as.push_back(upload(host));
      }
      std::vector<float> w(static_cast<size_t>(pr.k) * pr.n, 0.01f), bias(pr.n, 0.1f);
      auto dw = upload(pack<T>(w, pr.k, pr.n));
      auto db = upload(bias);
      DeviceBuf y(rows * pr.n * sizeof(T));
      const float ms = lab::median_ms(
          [&](int i) {
            CUDA_CHECK(launch_product<T>(static_cast<const T*>(as[i % kBuffers]->p), dw->p,
                                         static_cast<const float*>(db->p), nullptr, static_cast<T*>(y.p), rows, pr.k,
                                         pr.n, pr.act, stream));
          },
          stream);
      const double flops = 2.0 * rows * pr.k * pr.n;
      const double bytes = double(rows) * (pr.k + pr.n) * sizeof(T);
      const double tflops = flops / (ms * 1e-3) / 1e12, gbps = bytes / (ms * 1e-3) / 1e9;
      const double peak = std::is_same_v<T, float> ? 67 : 790;
      printf(
          "%-4s batch %6d %-18s rows %8lld  %8.4f ms  %7.1f TFLOP/s (%4.1f%% of %.0f)  %6.0f GB/s (%4.1f%% of 4000)\n",
          type_name<T>(), batch, pr.name, static_cast<long long>(rows), ms, tflops, 100 * tflops / peak, peak, gbps,
          100 * gbps / 4000);
      if (csv)
        fprintf(csv, "%s,%d,%s,%lld,%.5f,%.2f,%.1f\n", type_name<T>(), batch, pr.name, static_cast<long long>(rows), ms,
                tflops, gbps);
      fflush(stdout);
    }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_lab(
      argc, argv, [] { return validate<__half>() + validate<__nv_bfloat16>() + validate<float>(); },
      [](const std::string& filter, FILE* csv) {
        if (csv) fprintf(csv, "type,batch,product,rows,ms,tflops,gbps\n");
        printf("== timing: median of 50 launches after 5 warm-ups, inputs rotated over 3 buffers ==\n");
        time_shapes<__nv_bfloat16>(filter, csv);
        time_shapes<__half>(filter, csv);
        time_shapes<float>(filter, csv);
      });
}
