// Lab for the float32 Linear on fp16 Tensor Cores by split operands (layers/linear/linear_split.cuh): its accuracy
// against float64 beside the strict-fp32 FFMA kernel's (layers/linear/linear_ffma.cuh) on the same inputs, at odd
// row counts, with rows far from 1 in magnitude (1e6, 1e-6, zeros) and rows holding NaN or Inf; then both kernels'
// times on the SSA's fp32 products at 655,360 rows (batch 65536 x 10 slices) and 40,960 (4096), in GB/s against
// the H200's ~4.2 TB/s (each product reads A, W and the residual once and writes Y once).
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
//     tests/kernels/linear_split_lab.cu layers/linear/linear_split_cuda.cu -o linear_split_lab
//   ./linear_split_lab [--check-only] [--no-validate] [--filter S] [--csv PATH]
// lab-sources: layers/linear/linear_split_cuda.cu
//
// Gate: relative L2 <= 1e-5 against float64 (the fp32 mode's gate against the CPU backend), NaN and Inf rows
// non-finite where the reference is, nothing written past Y.
//
// Accuracy (H200, every call): relative L2 1.3e-7 .. 4.5e-7 against float64, the FFMA kernel's 0.8e-7 .. 1.9e-7 on the
// same inputs; worst element 1.1e-6 of its row's largest (FFMA 6.6e-7); rows scaled by 1e6 and 1e-6, zero rows, NaN
// and Inf rows as the reference. Floor: the bytes (A, W, the residual read once, Y written once) at ~4.2 TB/s.
// Variants and figures (H200, ms at 655,360 rows, median of 50 launches over 3 rotated inputs, two rounds alike;
// tools/results/h200/linear_split/call_{a..e}), split against the FFMA kernel in the same process:
//   S1. a warp's tile straight into registers, the activation a run-time switch per element, the residual loaded
//       in the epilogue (call_a): embed 0.107 / 0.128, q 0.136 / 0.179, proj + res 0.247 / 0.219, fc1 + GELU 0.348
//       / 0.414, fc2 + res 0.322 / 0.316, out 0.084 / 0.174 (1.4-3.0 TB/s).
//   S2. tried (call_b): each warp's tiles through two shared-memory slots of its own by cp.async (the next tile's A
//       and residual in flight under this one's products): slower (q 0.149, fc1 0.384, fc2 0.478: its slots leave
//       one CTA per SM at K = 128). Dropped.
//   Why (ncu, call_c / call_d, q and proj): 16 warps per SM at 12-20 cycles per issued instruction; the
//       activation's switch 26% of q's executed instructions; proj's stall samples 5x q's on long scoreboard (each
//       residual load waited for in turn behind the stores).
//   S3. the activation and the residual compiled in, a chunk's residual loaded before its products, 32-column
//       chunks where a residual meets K = 128 (call_e, kept): embed 0.074 / 0.129, q 0.094 / 0.179, proj + res 0.140
//       / 0.219, fc1 + GELU 0.204 / 0.413, fc2 + res 0.201 / 0.317, out 0.070 / 0.175: 3.3-3.7 TB/s (fc1 2.5: the
//       erf GELU), 1.6-2.5x the FFMA kernel; at 40,960 rows 1.3-1.9x.
// In the engine since (linear_split_cuda.cu: K and N of 32, 64, 128): the SSA in fp32 at 65536 4.53 -> 3.70 ms
// (call_f). The SSA's encoder (K 640) and decoder (N 640): per position of the sequence in linear_split_latent.cuh.
//   S4. tried in the engine's split sequence (tools/results/h200/split_sequence/call_e, ncu at 655,360 rows, the
//       same build with and without): Y stored by whole rows through 4.6 KB of shared memory per warp (16-byte
//       stores of two 256-byte rows per instruction instead of 32 bytes in each of eight rows): slower but for fc2
//       (embed + LN 0.098 -> 0.105, q | k | v 0.247 -> 0.250, proj 0.127 -> 0.151, fc1 0.210 -> 0.234, fc2 0.206
//       -> 0.196; the whole SSA 2.470 -> 2.565 ms): the staging's shared-memory round trip and barriers cost more
//       than the partial-line stores, which L2 merges. Dropped.
#include <cuda_fp16.h>

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
#include "layers/linear/linear_split_launch.h"
#include "tests/kernels/lab_util.cuh"

namespace {

using ie::dev::Act;
using lab::DeviceBuf;
namespace sp = ie::lin::split;
namespace ff = ie::lin::ffma;

std::unique_ptr<DeviceBuf> upload(const void* p, size_t bytes) {
  auto b = std::make_unique<DeviceBuf>(bytes);
  CUDA_CHECK(cudaMemcpy(b->p, p, bytes, cudaMemcpyHostToDevice));
  return b;
}
template <class T>
std::unique_ptr<DeviceBuf> upload(const std::vector<T>& v) {
  return upload(v.data(), v.size() * sizeof(T));
}

// W [K, N] (row-major, as A W) split for the kernel by its own packer.
sp::SplitWeights pack_split(const std::vector<float>& w, int k, int n) {
  return sp::pack_split_weights([&](int i, int j) { return w[static_cast<size_t>(i) * n + j]; }, k, n);
}

// W as the FFMA kernel reads it: [kp, np] row-major, zero-padded.
std::vector<float> pack_ffma(const std::vector<float>& w, int k, int n) {
  return lab::zero_padded(w, k, n, ff::padded_k(k), ff::padded_n(n));
}

struct Shape {
  const char* name;
  int k, n;
  Act act;
  bool residual;
};

// The engine's own dispatch over the shapes its build holds (linear_split_cuda.cu).
cudaError_t launch_split(const sp::Params& p, cudaStream_t s) { return sp::launch_compiled(p, lab::sms(), s); }

// The SSA's float32 products (shared/specs/models.md) at their sizes.
const Shape kShapes[] = {
    {"embed 32->64", 32, 64, Act::None, false},     {"q 64->64", 64, 64, Act::None, false},
    {"proj 64->64 +res", 64, 64, Act::None, true},  {"fc1 64->128 +GELU", 64, 128, Act::Gelu, false},
    {"fc2 128->64 +res", 128, 64, Act::None, true}, {"out 64->32", 64, 32, Act::None, false},
};

struct Errors {
  double rel_l2 = 0, worst = 0;  // worst: |y - ref| / (largest |ref| of its row)
  int bad_nonfinite = 0;         // non-finite where the reference is finite, or the other way round
};
Errors errors(const std::vector<double>& ref, const std::vector<float>& y, int64_t rows, int n) {
  Errors e;
  double num = 0, den = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double rmax = 0;
    for (int j = 0; j < n; ++j)
      if (std::isfinite(ref[r * n + j])) rmax = std::max(rmax, std::fabs(ref[r * n + j]));
    for (int j = 0; j < n; ++j) {
      const double want = ref[r * n + j], got = y[r * n + j];
      if (std::isfinite(want) != std::isfinite(got)) {
        ++e.bad_nonfinite;
        continue;
      }
      if (!std::isfinite(want)) continue;
      num += (got - want) * (got - want), den += want * want;
      if (rmax > 0) e.worst = std::max(e.worst, std::fabs(got - want) / rmax);
    }
  }
  e.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return e;
}

// One check: both kernels on the same inputs against float64; `special`: rows 0..4 scaled by 1e6 and 1e-6, zero,
// holding a NaN, holding an Inf. Returns the number of failures (the split kernel's; the FFMA kernel's errors are
// printed beside it).
int check(const Shape& sh, int64_t rows, bool special, unsigned seed) {
  const int k = sh.k, n = sh.n;
  std::mt19937 rng(seed);
  const float wr = 1.f / std::sqrt(static_cast<float>(k));
  std::uniform_real_distribution<float> ua(-1.f, 1.f), uw(-wr, wr), ub(-0.3f, 0.3f);
  std::vector<float> a(rows * k), w(static_cast<size_t>(k) * n), b(n), res(rows * n);
  for (float& x : a) x = ua(rng) + 0.25f;
  for (float& x : w) x = uw(rng);
  for (float& x : b) x = ub(rng);
  for (float& x : res) x = ua(rng);
  if (special && rows >= 5) {
    for (int i = 0; i < k; ++i) a[0 * k + i] *= 1e6f, a[1 * k + i] *= 1e-6f, a[2 * k + i] = 0.f;
    a[3 * k + k / 2] = NAN;
    a[4 * k + 1] = INFINITY;
  }
  std::vector<double> ref(rows * n);
  for (int64_t r = 0; r < rows; ++r)
    for (int j = 0; j < n; ++j) {
      double s = b[j];
      for (int i = 0; i < k; ++i) s += static_cast<double>(a[r * k + i]) * w[static_cast<size_t>(i) * n + j];
      s = lab::activation_ref(sh.act, s);
      if (sh.residual) s += res[r * n + j];
      ref[r * n + j] = s;
    }
  const sp::SplitWeights sw = pack_split(w, k, n);
  auto da = upload(a), dsw = upload(sw.blob), dcs = upload(sw.col_scale), dfw = upload(pack_ffma(w, k, n));
  auto db = upload(b), dr = upload(res);
  lab::GuardedOutput ys(rows * n, 4), yf(rows * n, 4);
  sp::Params p;
  p.a = static_cast<const float*>(da->p), p.w = static_cast<const uint4*>(dsw->p);
  p.col_scale = static_cast<const float*>(dcs->p), p.bias = static_cast<const float*>(db->p);
  p.residual = sh.residual ? static_cast<const float*>(dr->p) : nullptr;
  p.y = static_cast<float*>(ys.buf.p), p.rows = rows, p.k = k, p.n = n, p.act = sh.act;
  CUDA_CHECK(launch_split(p, 0));
  ff::Params f;
  f.a = p.a, f.w = static_cast<const float*>(dfw->p), f.bias = p.bias, f.residual = p.residual;
  f.y = static_cast<float*>(yf.buf.p), f.rows = rows, f.k = k, f.n = n, f.kp = ff::padded_k(k), f.np = ff::padded_n(n);
  f.act = sh.act;
  CUDA_CHECK(ff::launch(f, 0));
  CUDA_CHECK(cudaDeviceSynchronize());
  // The outputs and whether the split kernel's guard past Y is untouched.
  auto floats = [](const std::vector<unsigned char>& b, size_t count) {
    std::vector<float> v(count);
    std::memcpy(v.data(), b.data(), count * 4);
    return v;
  };
  auto guard_ok = [](const lab::GuardedOutput& o, const std::vector<unsigned char>& b) {
    bool ok = true;
    for (size_t i = o.out_bytes(); i < b.size(); ++i) ok &= b[i] == lab::GuardedOutput::kGuardByte;
    return ok;
  };
  const std::vector<unsigned char> bs = ys.fetch();
  const Errors es = errors(ref, floats(bs, rows * n), rows, n), ef = errors(ref, floats(yf.fetch(), rows * n), rows, n);
  const bool guard = guard_ok(ys, bs);
  const bool ok = es.rel_l2 <= 1e-5 && es.bad_nonfinite == 0 && guard;
  printf(
      "%s  %-18s rows %-6lld %-8s split: rel L2 %.2e worst %.2e non-finite %d%s | FFMA: rel L2 %.2e worst %.2e "
      "non-finite %d\n",
      ok ? "PASS" : "FAIL", sh.name, static_cast<long long>(rows), special ? "special" : "", es.rel_l2, es.worst,
      es.bad_nonfinite, guard ? "" : " (wrote past Y)", ef.rel_l2, ef.worst, ef.bad_nonfinite);
  return ok ? 0 : 1;
}

int validate() {
  int failed = 0;
  unsigned seed = 1;
  for (const Shape& sh : kShapes) {
    for (int64_t rows : {1, 7, 129, 5121}) failed += check(sh, rows, false, seed++);
    failed += check(sh, 133, true, seed++);
  }
  return failed;
}

void time_all(const std::string& filter, FILE* csv) {
  if (csv) fprintf(csv, "product,rows,kernel,ms,gb_s\n");
  for (int64_t rows : {655360, 40960})
    for (const Shape& sh : kShapes) {
      if (!filter.empty() && std::string(sh.name).find(filter) == std::string::npos) continue;
      const int k = sh.k, n = sh.n;
      std::mt19937 rng(3);
      std::uniform_real_distribution<float> uw(-0.1f, 0.1f);
      std::vector<float> w(static_cast<size_t>(k) * n), b(n, 0.1f);
      for (float& x : w) x = uw(rng);
      const sp::SplitWeights swp = pack_split(w, k, n);
      auto dsw = upload(swp.blob), dcs = upload(swp.col_scale), dfw = upload(pack_ffma(w, k, n)), db = upload(b);
      auto xs = lab::rotated_inputs<float>(static_cast<size_t>(rows) * k, 3);
      auto rs = lab::rotated_inputs<float>(static_cast<size_t>(rows) * n, 3);
      DeviceBuf y(static_cast<size_t>(rows) * n * 4);
      const double bytes = 4.0 * rows * (k + n + (sh.residual ? n : 0));
      auto report = [&](const char* kernel, float ms) {
        printf("  %-18s rows %-7lld %-6s %8.4f ms %7.0f GB/s\n", sh.name, static_cast<long long>(rows), kernel, ms,
               bytes / ms * 1e-6);
        if (csv)
          fprintf(csv, "%s,%lld,%s,%.5f,%.0f\n", sh.name, static_cast<long long>(rows), kernel, ms, bytes / ms * 1e-6);
      };
      const float ms_split = lab::median_ms(
          [&](int i) {
            sp::Params p;
            p.a = static_cast<const float*>(xs[i % 3]->p), p.w = static_cast<const uint4*>(dsw->p);
            p.col_scale = static_cast<const float*>(dcs->p), p.bias = static_cast<const float*>(db->p);
            p.residual = sh.residual ? static_cast<const float*>(rs[i % 3]->p) : nullptr;
            p.y = static_cast<float*>(y.p), p.rows = rows, p.k = k, p.n = n, p.act = sh.act;
            CUDA_CHECK(launch_split(p, 0));
          },
          0);
      report("split", ms_split);

      const float ms_ffma = lab::median_ms(
          [&](int i) {
            ff::Params f;
            f.a = static_cast<const float*>(xs[i % 3]->p), f.w = static_cast<const float*>(dfw->p);
            f.bias = static_cast<const float*>(db->p);
            f.residual = sh.residual ? static_cast<const float*>(rs[i % 3]->p) : nullptr;
            f.y = static_cast<float*>(y.p), f.rows = rows, f.k = k, f.n = n, f.kp = ff::padded_k(k);
            f.np = ff::padded_n(n), f.act = sh.act;
            CUDA_CHECK(ff::launch(f, 0));
          },
          0);
      report("ffma", ms_ffma);
    }
}

}  // namespace

int main(int argc, char** argv) { return lab::run_lab(argc, argv, validate, time_all); }
