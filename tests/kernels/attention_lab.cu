// Lab for the fused set's attention kernel (layers/attention/attention_fused.cuh): a float64 CPU reference,
// validation on odd shapes (batch 1 to 10001, sequences 1 to 128, head dims 2 to 128) in fp32, fp16 and bf16 with
// and without RoPE and with every CTA size, then timings against a device-to-device copy of the same bytes
// measured in the same run (the kernel reads q, k, v and writes y once: the copy is its floor at short sequences).
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
//        tests/kernels/attention_lab.cu -o attention_lab
// Run:
//   ./attention_lab                validate, then time the targets with every CTA size
//   --check-only   validate only;   --no-validate   timing only;   --filter S   timings whose name contains S
//   --csv PATH     timings as CSV
// Exit status: non-zero when a check fails or a CUDA call errs; 0 with a message when there is no GPU.
//
// Measured (H200; keep this current; tools/results/h200/ssa_attention/attention_lab.log). TB/s = (3 reads +
// 1 write) bytes / median time, a copy of the same bytes in brackets:
//   SSA shape (S 10, 4 heads of 16, RoPE), CTA of 128 query lanes (the default):
//     batch 65536: bf16 0.222 ms 1.51 TB/s [4.03], fp16 0.221, fp32 0.301 ms 2.23 TB/s [4.18]; batch 512: 0.009 ms
//     fp32 in the tile form (the default for float where it applies): 0.216 ms 3.11 TB/s [4.19] (74% of the copy),
//     with q | k | v as one product 3E apart (the split sequence's) 0.217 against the staged form's 0.308; at 4096
//     0.0227 against 0.0309 (tools/results/h200/attention_own/call_c).
//   longer sequences on CUDA cores: S 64 D 32 7.9 TFLOP/s, S 128 D 64 7.6 TFLOP/s (1.09 and 4.50 ms): these want
//     Tensor Core scores (mma over q k^T and p v) before they are worth fusing at that size.
//   projected (x w + bias in the kernel, K 64): bf16 0.017 ms at 512 (against 0.028 for three Linear products and
//     the kernel above), 0.69 ms at 65536 (against 0.47): the factory declines it above 32768 rows.
// Variants and what was learned:
//   - First version: pairs loaded with 64-bit index arithmetic per pair, every unit's smem at a 480-float stride:
//     0.30-0.36 ms at 65536 bf16. 16-byte loads for CTAs of whole batch elements changed little (0.32): the loads
//     were not the limit. Units 16 bytes apart in the banks (unit_floats(); the teams of a warp read key j of
//     their own units, a 4-way conflict at 480 floats) and four accumulation chains in the dot product: 0.22 ms.
//   - CTA size: 128 query lanes best at 65536 (64: 0.275, 256: 0.286, 512: 0.260 ms); 64 best at 512.
//   - ptxas: the whole-element kernels need launch_bounds(512, 1) (with 512 alone ptxas capped them at 64
//     registers and spilled 12 bytes); 41-85 registers, no spills. The projected kernel: 88-102, no spills.
//   - q, k and v loads four vectors in flight per thread before any RoPE or store (the load loop unrolled by hand):
//     no gain, reverted (the engine's fp32 SSA attention at 65536 under ncu 0.309 -> 0.316 ms; this lab in the same
//     call: fp32 0.314 ms, bf16 0.266; tools/results/h200/split_sequence/call_c).
//   - The tile form (fp32; attention_own/call_a..c, ncu at 65536 with q | k | v one product, CTA of 128):
//     a) each thread its own row of q, k and v as 16-byte loads straight into registers (q kept there, k and v to
//        shared memory), its output row as 8-byte stores: 0.258 ms against 0.309 staged, but L1 93% busy at 53% of
//        DRAM: a warp's 16-byte accesses 64 bytes apart touch twice the sectors they use (13 of 32 bytes a sector).
//     b) the CTA's rows copied by cp.async into a padded row layout, the output out through shared memory, the
//        chunks placed by index arithmetic per chunk (four divisions by the shape): 0.358 ms, issue-bound (277 M
//        instructions against 109 M for a).
//     c) (kept) the copies in global order (one run per tensor or one for the product, no division), each group of
//        four chunks swizzled so the threads' own-row reads spread over the banks, k and v into the staged form's
//        per-head units: 0.219 ms, L1 82%, DRAM 63%, 83 registers. Capped at 64 registers (2 CTAs of 512 a SM):
//        76 bytes spilled, 0.241 ms.
//   - Projected kernel: x by cp.async into two buffers made no difference (0.68 -> 0.69 ms); its CTAs of 4-8
//     warps with four barriers per group and 55-160 KB of shared memory keep too few warps in flight.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "layers/attention/attention_fused.cuh"
#include "layers/attention/attention_projected.cuh"
#include "tests/kernels/lab_util.cuh"

namespace {

using lab::by_type;
using lab::bytes_of;
using lab::DeviceBuf;
using lab::DT;
using lab::dt_name;
using lab::dt_size;
using lab::floats_of;
using lab::round_to;

struct Shape {
  int64_t batch;
  int seq, heads, dim;
  bool rope;
};

void tables(const Shape& s, std::vector<float>& cos, std::vector<float>& sin) {
  const int half = s.dim / 2;
  cos.assign(static_cast<size_t>(s.seq) * half, 0.f);
  sin.assign(cos.size(), 0.f);
  for (int p = 0; p < s.seq; ++p)
    for (int i = 0; i < half; ++i) {
      const double angle = p * std::pow(10000.0, -2.0 * i / s.dim);
      cos[p * half + i] = static_cast<float>(std::cos(angle));
      sin[p * half + i] = static_cast<float>(std::sin(angle));
    }
}

// Float64 attention of one (batch, head) unit, written into y (merged layout).
void reference_unit(const Shape& s, const float* q, const float* k, const float* v, const float* cos, const float* sin,
                    double scale, int64_t b, int h, std::vector<double>& y) {
  const int S = s.seq, D = s.dim, E = s.heads * s.dim;
  std::vector<double> qh(S * D), kh(S * D), p(S);
  for (int r = 0; r < S; ++r) {
    const int64_t at = (b * S + r) * E + static_cast<int64_t>(h) * D;
    for (int d = 0; d < D; ++d) qh[r * D + d] = q[at + d], kh[r * D + d] = k[at + d];
    if (s.rope)
      for (int i = 0; i < D / 2; ++i) {
        const double c = cos[r * (D / 2) + i], sn = sin[r * (D / 2) + i];
        for (auto* x : {&qh, &kh}) {
          const double x0 = (*x)[r * D + 2 * i], x1 = (*x)[r * D + 2 * i + 1];
          (*x)[r * D + 2 * i] = x0 * c - x1 * sn;
          (*x)[r * D + 2 * i + 1] = x0 * sn + x1 * c;
        }
      }
  }
  for (int i = 0; i < S; ++i) {
    double top = -INFINITY, sum = 0;
    for (int j = 0; j < S; ++j) {
      double dot = 0;
      for (int d = 0; d < D; ++d) dot += qh[i * D + d] * kh[j * D + d];
      p[j] = dot * scale;
      top = std::max(top, p[j]);
    }
    for (int j = 0; j < S; ++j) sum += p[j] = std::exp(p[j] - top);
    for (int d = 0; d < D; ++d) {
      double acc = 0;
      for (int j = 0; j < S; ++j) acc += p[j] * v[(b * S + j) * E + static_cast<int64_t>(h) * D + d];
      y[(b * S + i) * E + static_cast<int64_t>(h) * D + d] = acc / sum;
    }
  }
}

// Against float64 on the same rounded inputs, relative to 1 + |y| (y is a mean of v in [-1, 1]): fp32 float
// arithmetic; 16-bit adds the output's rounding (2^-11, 2^-8) and nothing else (RoPE and scores are float).
double tolerance(DT t) { return t == DT::F32 ? 2e-5 : t == DT::F16 ? 2e-3 : 1e-2; }

using ie::att::Variant;
const char* variant_name(Variant v) { return v == Variant::Tile ? "tile" : v == Variant::Staged ? "staged" : "auto"; }
// The tile form takes float, head dims up to 16 in multiples of 4 and an element's positions x heads within 512.
bool tile_takes(DT t, const Shape& s) {
  return t == DT::F32 && s.dim <= 16 && s.dim % 4 == 0 && s.seq * s.heads <= ie::att::kMaxRowsThreads;
}

// packed: q, k and v as one [B, S, 3E] tensor read 3E apart (the output of one q | k | v product).
int check_case(DT t, const Shape& s, int threads, unsigned seed, Variant variant = Variant::Auto, bool packed = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uqk(-2.f, 2.f), uv(-1.f, 1.f);
  const size_t n = static_cast<size_t>(s.batch) * s.seq * s.heads * s.dim;
  std::vector<float> q(n), k(n), v(n), cos, sin;
  for (float& x : q) x = uqk(rng);
  for (float& x : k) x = uqk(rng);
  for (float& x : v) x = uv(rng);
  q = round_to(t, q), k = round_to(t, k), v = round_to(t, v);
  tables(s, cos, sin);
  const int es = dt_size(t), E = s.heads * s.dim;
  DeviceBuf dq(3 * n * es), dk(n * es), dv(n * es), dy(n * es), dc(cos.size() * 4 + 16), ds(sin.size() * 4 + 16);
  if (packed) {
    std::vector<float> qkv(3 * n);
    for (size_t r = 0; r < n / E; ++r)
      for (int c = 0; c < E; ++c) {
        qkv[r * 3 * E + c] = q[r * E + c];
        qkv[r * 3 * E + E + c] = k[r * E + c];
        qkv[r * 3 * E + 2 * E + c] = v[r * E + c];
      }
    CUDA_CHECK(cudaMemcpy(dq.p, bytes_of(t, qkv).data(), 3 * n * es, cudaMemcpyHostToDevice));
  } else {
    CUDA_CHECK(cudaMemcpy(dq.p, bytes_of(t, q).data(), n * es, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dk.p, bytes_of(t, k).data(), n * es, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dv.p, bytes_of(t, v).data(), n * es, cudaMemcpyHostToDevice));
  }
  CUDA_CHECK(cudaMemcpy(dc.p, cos.data(), cos.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(ds.p, sin.data(), sin.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dy.p, 0xff, n * es));  // NaN patterns: an unwritten output fails
  ie::att::Params p;
  p.q = dq.p, p.k = dk.p, p.v = dv.p, p.y = dy.p;
  if (packed) {
    unsigned char* base = static_cast<unsigned char*>(dq.p);
    p.k = base + E * es, p.v = base + 2 * E * es, p.ld = 3 * E;
  }
  p.cos = s.rope ? static_cast<const float*>(dc.p) : nullptr;
  p.sin = s.rope ? static_cast<const float*>(ds.p) : nullptr;
  p.batch = s.batch, p.seq = s.seq, p.heads = s.heads, p.dim = s.dim;
  p.scale = static_cast<float>(1 / std::sqrt(static_cast<double>(s.dim)));
  by_type(t, [&](auto tag) {
    CUDA_CHECK(ie::att::launch<decltype(tag)>(p, 0, threads, ie::att::kDefaultSmem, variant));
    return 0;
  });
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> yb(n * es);
  CUDA_CHECK(cudaMemcpy(yb.data(), dy.p, yb.size(), cudaMemcpyDeviceToHost));
  const std::vector<float> y = floats_of(t, yb);
  std::vector<double> ref(n);
  for (int64_t b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h)
      reference_unit(s, q.data(), k.data(), v.data(), cos.data(), sin.data(), p.scale, b, h, ref);
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double err = std::fabs(y[i] - ref[i]) / (1 + std::fabs(ref[i]));
    worst = std::isnan(err) ? 1e30 : std::max(worst, err);
  }
  const bool ok = worst <= tolerance(t);
  printf("%s %-5s B%-6lld S%-4d H%-3d D%-4d %-5s T%-5d %-6s %-6s max err %.2e (tol %.1e)\n", ok ? "PASS" : "FAIL",
         dt_name(t), static_cast<long long>(s.batch), s.seq, s.heads, s.dim, s.rope ? "rope" : "plain", threads,
         variant_name(variant), packed ? "packed" : "apart", worst, tolerance(t));
  return ok ? 0 : 1;
}

// The projected form: x [B, S, K] times the packed [K, 3E] weight plus bias gives q | k | v (float64 here, from
// the rounded x and weight the kernel reads), then the same reference.
int check_projected(DT t, const Shape& s, int k, int threads, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> ux(-1.f, 1.f), uw(-0.3f, 0.3f), ub(-0.2f, 0.2f);
  const int E = s.heads * s.dim, N = 3 * E, kp = (k + 15) / 16 * 16;
  const size_t rows = static_cast<size_t>(s.batch) * s.seq;
  std::vector<float> x(rows * k), w(static_cast<size_t>(kp) * N, 0.f), bias(N), cos, sin;
  for (float& v : x) v = ux(rng);
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < N; ++c) w[r * N + c] = uw(rng);
  for (float& v : bias) v = ub(rng);
  x = round_to(t, x), w = round_to(t, w);
  tables(s, cos, sin);
  const int es = dt_size(t);
  DeviceBuf dx(x.size() * es), dw(w.size() * es), db(N * 4), dy(rows * E * es), dc(cos.size() * 4 + 16),
      ds(sin.size() * 4 + 16);
  CUDA_CHECK(cudaMemcpy(dx.p, bytes_of(t, x).data(), x.size() * es, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dw.p, bytes_of(t, w).data(), w.size() * es, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db.p, bias.data(), N * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dc.p, cos.data(), cos.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(ds.p, sin.data(), sin.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dy.p, 0xff, rows * E * es));
  ie::att::Params p;
  p.x = dx.p, p.w = dw.p, p.bias = static_cast<const float*>(db.p), p.y = dy.p;
  p.cos = s.rope ? static_cast<const float*>(dc.p) : nullptr;
  p.sin = s.rope ? static_cast<const float*>(ds.p) : nullptr;
  p.batch = s.batch, p.seq = s.seq, p.heads = s.heads, p.dim = s.dim, p.width = k, p.width_padded = kp;
  p.scale = static_cast<float>(1 / std::sqrt(static_cast<double>(s.dim)));
  by_type(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (sizeof(T) == 2) CUDA_CHECK(ie::att::launch_projected<T>(p, 0, threads));
    return 0;
  });
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> yb(rows * E * es);
  CUDA_CHECK(cudaMemcpy(yb.data(), dy.p, yb.size(), cudaMemcpyDeviceToHost));
  const std::vector<float> y = floats_of(t, yb);
  std::vector<float> q(rows * E), kk(rows * E), v(rows * E);
  for (size_t r = 0; r < rows; ++r)
    for (int c = 0; c < N; ++c) {
      double acc = bias[c];
      for (int i = 0; i < k; ++i) acc += static_cast<double>(x[r * k + i]) * w[i * N + c];
      (c < E ? q : c < 2 * E ? kk : v)[r * E + c % E] = static_cast<float>(acc);
    }
  std::vector<double> ref(rows * E);
  for (int64_t b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.heads; ++h)
      reference_unit(s, q.data(), kk.data(), v.data(), cos.data(), sin.data(), p.scale, b, h, ref);
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double err = std::fabs(y[i] - ref[i]) / (1 + std::fabs(ref[i]));
    worst = std::isnan(err) ? 1e30 : std::max(worst, err);
  }
  // Float products of the rounded inputs against float64: only the output's rounding on top (as tolerance()).
  const bool ok = worst <= tolerance(t);
  printf("%s %-5s B%-6lld S%-4d H%-3d D%-4d K%-4d %-5s T%-5d projected  max err %.2e (tol %.1e)\n",
         ok ? "PASS" : "FAIL", dt_name(t), static_cast<long long>(s.batch), s.seq, s.heads, s.dim, k,
         s.rope ? "rope" : "plain", threads, worst, tolerance(t));
  return ok ? 0 : 1;
}

int validate() {
  int failures = 0;
  unsigned seed = 1;
  const std::vector<Shape> shapes = {
      {1, 10, 4, 16, true},  {7, 10, 4, 16, true},   {10001, 10, 4, 16, true}, {3, 1, 1, 2, true},
      {5, 17, 3, 6, true},   {2, 128, 2, 128, true}, {3, 33, 2, 48, true},     {4, 7, 5, 10, false},
      {2, 64, 1, 64, false}, {9, 100, 3, 32, true},  {2, 9, 2, 200, true},     {1, 3, 1, 512, false},
  };
  for (DT t : {DT::F32, DT::F16, DT::BF16})
    for (const Shape& s : shapes) {
      failures += check_case(t, s, 256, seed++, Variant::Staged);
      if (tile_takes(t, s)) failures += check_case(t, s, 256, seed++, Variant::Tile);
      // q | k | v of one product, 3E apart (a row stride that is not a multiple of 16 bytes at E = 18).
      if (s.batch <= 10001 && (s.dim == 16 || s.dim == 6 || s.dim == 10)) {
        failures += check_case(t, s, 128, seed++, Variant::Staged, true);
        if (tile_takes(t, s)) failures += check_case(t, s, 128, seed++, Variant::Tile, true);
      }
    }
  // The projected form: the SSA's shape, odd batch and K, head dims 8 to 128, with and without RoPE.
  for (DT t : {DT::F16, DT::BF16}) {
    failures += check_projected(t, {1, 10, 4, 16, true}, 64, 128, seed++);
    failures += check_projected(t, {1001, 10, 4, 16, true}, 64, 128, seed++);
    failures += check_projected(t, {37, 7, 2, 8, true}, 24, 256, seed++);
    failures += check_projected(t, {9, 17, 3, 32, false}, 40, 512, seed++);
    failures += check_projected(t, {5, 12, 2, 64, true}, 128, 128, seed++);
    failures += check_projected(t, {3, 4, 1, 128, true}, 72, 128, seed++);
  }
  // Every CTA size on shapes where it changes the units per CTA (and a last CTA with fewer units).
  for (int threads : {32, 64, 128, 512, 1024}) {
    failures += check_case(DT::BF16, {1001, 10, 4, 16, true}, threads, seed++, Variant::Staged);
    failures += check_case(DT::F32, {37, 20, 3, 24, true}, threads, seed++);
    failures += check_case(DT::F32, {1001, 10, 4, 16, true}, threads, seed++, Variant::Tile, true);
    failures += check_case(DT::F32, {999, 13, 3, 8, true}, threads, seed++, Variant::Tile);
    failures += check_case(DT::F32, {101, 7, 5, 12, true}, threads, seed++, Variant::Tile, true);
    failures += check_case(DT::F32, {55, 9, 2, 4, false}, threads, seed++, Variant::Tile);
  }
  return failures;
}

// ---- timing ----------------------------------------------------------------------------------------------------
struct Target {
  Shape s;
  DT t;
  const char* what;
  bool packed = false;  // q | k | v in one [B, S, 3E] tensor (the engine's fp32 SSA)
};

void time_targets(const std::string& filter, FILE* csv) {
  const std::vector<Target> targets = {
      {{512, 10, 4, 16, true}, DT::BF16, "SSA batch 512"},
      {{65536, 10, 4, 16, true}, DT::BF16, "SSA 65536"},
      {{65536, 10, 4, 16, true}, DT::F16, "SSA 65536"},
      {{65536, 10, 4, 16, true}, DT::F32, "SSA 65536"},
      {{65536, 10, 4, 16, true}, DT::F32, "SSA qkv 65536", true},
      {{4096, 10, 4, 16, true}, DT::F32, "SSA qkv 4096", true},
      {{4096, 64, 4, 32, true}, DT::BF16, "S64 D32"},
      {{1024, 128, 8, 64, true}, DT::BF16, "S128 D64"},
      {{512, 128, 4, 128, false}, DT::BF16, "S128 D128"},
  };
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  printf(
      "== timing: median of 50 launches after 5 warm-ups, inputs rotated over 3 buffer sets; TB/s = (3 reads + 1 "
      "write) bytes / time; copy = cudaMemcpyAsync moving the same bytes; TFLOP/s = 4 S^2 D per head ==\n");
  printf("%-14s %-5s %-26s %-6s %-6s %9s %7s %9s %8s %8s\n", "target", "type", "shape", "form", "CTA", "ms", "TB/s",
         "copy TB/s", "of copy", "TFLOP/s");
  if (csv) fprintf(csv, "target,type,batch,seq,heads,dim,rope,variant,threads,ms,tbps,copy_tbps,pct_of_copy,tflops\n");
  for (const Target& tg : targets) {
    const Shape& s = tg.s;
    const int es = dt_size(tg.t);
    const size_t n = static_cast<size_t>(s.batch) * s.seq * s.heads * s.dim;
    constexpr int kSets = 3;
    std::vector<std::unique_ptr<DeviceBuf>> bufs;
    std::vector<float> ramp(n);
    for (int i = 0; i < kSets * 3; ++i) {
      if (tg.packed && i % 3 != 0) {  // one [B, S, 3E] tensor per set
        bufs.push_back(nullptr);
        continue;
      }
      const size_t count = tg.packed ? 3 * n : n;
      ramp.resize(count);
      for (size_t e = 0; e < count; ++e) ramp[e] = static_cast<float>((e * 7 + i * 13) % 97) / 97.f - 0.5f;
      bufs.push_back(std::make_unique<DeviceBuf>(count * es));
      CUDA_CHECK(cudaMemcpy(bufs.back()->p, bytes_of(tg.t, ramp).data(), count * es, cudaMemcpyHostToDevice));
    }
    DeviceBuf y(n * es), copy_src(2 * n * es), copy_dst(2 * n * es);
    std::vector<float> cos, sin;
    tables(s, cos, sin);
    DeviceBuf dc(cos.size() * 4 + 16), ds(sin.size() * 4 + 16);
    CUDA_CHECK(cudaMemcpy(dc.p, cos.data(), cos.size() * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(ds.p, sin.data(), sin.size() * 4, cudaMemcpyHostToDevice));
    const double bytes = 4.0 * n * es;
    const float copy_ms = lab::median_ms(
        [&](int) { CUDA_CHECK(cudaMemcpyAsync(copy_dst.p, copy_src.p, 2 * n * es, cudaMemcpyDeviceToDevice, stream)); },
        stream);
    const double copy_tbps = bytes / (copy_ms * 1e-3) / 1e12;
    const double flops = 4.0 * s.batch * s.heads * s.seq * s.seq * s.dim;
    for (Variant variant : {Variant::Staged, Variant::Tile})
      for (int threads : {64, 128, 160, 256, 320, 512}) {
        if (variant == Variant::Tile && !tile_takes(tg.t, s)) continue;
        char shape[64];
        snprintf(shape, sizeof shape, "B%lld S%d H%d D%d%s", static_cast<long long>(s.batch), s.seq, s.heads, s.dim,
                 s.rope ? " rope" : "");
        const std::string name = std::string(tg.what) + " " + dt_name(tg.t) + " " + shape + " " + variant_name(variant);
        if (!filter.empty() && name.find(filter) == std::string::npos) continue;
        const float ms = lab::median_ms(
            [&](int i) {
              ie::att::Params p;
              const int set = i % kSets;
              if (tg.packed) {
                unsigned char* base = static_cast<unsigned char*>(bufs[set * 3]->p);
                const int E = s.heads * s.dim;
                p.q = base, p.k = base + E * es, p.v = base + 2 * E * es, p.ld = 3 * E, p.y = y.p;
              } else {
                p.q = bufs[set * 3]->p, p.k = bufs[set * 3 + 1]->p, p.v = bufs[set * 3 + 2]->p, p.y = y.p;
              }
              p.cos = s.rope ? static_cast<const float*>(dc.p) : nullptr;
              p.sin = s.rope ? static_cast<const float*>(ds.p) : nullptr;
              p.batch = s.batch, p.seq = s.seq, p.heads = s.heads, p.dim = s.dim;
              p.scale = 0.25f;
              by_type(tg.t, [&](auto tag) {
                CUDA_CHECK(ie::att::launch<decltype(tag)>(p, stream, threads, ie::att::kDefaultSmem, variant));
                return 0;
              });
            },
            stream);
        const double tbps = bytes / (ms * 1e-3) / 1e12;
        const double tflops = flops / (ms * 1e-3) / 1e12;
        printf("%-14s %-5s %-26s %-6s T%-5d %9.4f %7.2f %9.2f %7.0f%% %8.2f\n", tg.what, dt_name(tg.t), shape,
               variant_name(variant), threads, ms, tbps, copy_tbps, 100 * tbps / copy_tbps, tflops);
        if (csv)
          fprintf(csv, "%s,%s,%lld,%d,%d,%d,%d,%s,%d,%.5f,%.3f,%.3f,%.1f,%.3f\n", tg.what, dt_name(tg.t),
                  static_cast<long long>(s.batch), s.seq, s.heads, s.dim, s.rope ? 1 : 0, variant_name(variant),
                  threads, ms, tbps, copy_tbps, 100 * tbps / copy_tbps, tflops);
      }
  }
  // The projected form: bytes are x read and y written (q, k and v stay on chip); copy of the same bytes.
  printf("== projected (q, k, v = x w + bias in the kernel; TB/s = (x + y) bytes / time) ==\n");
  for (DT t : {DT::BF16, DT::F16})
    for (int64_t batch : {512, 65536}) {
      const Shape s{batch, 10, 4, 16, true};
      const int k = 64, E = 64, N = 192, es = dt_size(t);
      const size_t rows = static_cast<size_t>(batch) * s.seq;
      std::vector<std::unique_ptr<DeviceBuf>> xs;
      std::vector<float> ramp(rows * k);
      for (int i = 0; i < 3; ++i) {
        for (size_t e = 0; e < ramp.size(); ++e) ramp[e] = static_cast<float>((e * 7 + i * 13) % 97) / 97.f - 0.5f;
        xs.push_back(std::make_unique<DeviceBuf>(ramp.size() * es));
        CUDA_CHECK(cudaMemcpy(xs.back()->p, bytes_of(t, ramp).data(), ramp.size() * es, cudaMemcpyHostToDevice));
      }
      std::vector<float> w(static_cast<size_t>(k) * N, 0.01f), bias(N, 0.1f), cos, sin;
      tables(s, cos, sin);
      DeviceBuf dw(w.size() * es), db(N * 4), y(rows * E * es), dc(cos.size() * 4), ds(sin.size() * 4);
      DeviceBuf copy_src(rows * (k + E) * es), copy_dst(rows * (k + E) * es);
      CUDA_CHECK(cudaMemcpy(dw.p, bytes_of(t, w).data(), w.size() * es, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(db.p, bias.data(), N * 4, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(dc.p, cos.data(), cos.size() * 4, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(ds.p, sin.data(), sin.size() * 4, cudaMemcpyHostToDevice));
      const double bytes = 2.0 * rows * (k + E) * es;  // read + write of the copy; x + y of the kernel, x2 below
      const float copy_ms = lab::median_ms(
          [&](int) {
            CUDA_CHECK(cudaMemcpyAsync(copy_dst.p, copy_src.p, rows * (k + E) * es, cudaMemcpyDeviceToDevice, stream));
          },
          stream);
      const double copy_tbps = bytes / (copy_ms * 1e-3) / 1e12;
      for (int threads : {128, 256, 320, 512}) {
        char shape[64];
        snprintf(shape, sizeof shape, "B%lld S10 H4 D16 K64 rope", static_cast<long long>(batch));
        const std::string name = std::string("projected ") + dt_name(t) + " " + shape;
        if (!filter.empty() && name.find(filter) == std::string::npos) continue;
        const float ms = lab::median_ms(
            [&](int i) {
              ie::att::Params p;
              p.x = xs[i % 3]->p, p.w = dw.p, p.bias = static_cast<const float*>(db.p), p.y = y.p;
              p.cos = static_cast<const float*>(dc.p), p.sin = static_cast<const float*>(ds.p);
              p.batch = batch, p.seq = 10, p.heads = 4, p.dim = 16, p.width = k, p.width_padded = k, p.scale = 0.25f;
              by_type(t, [&](auto tag) {
                using T = decltype(tag);
                if constexpr (sizeof(T) == 2) CUDA_CHECK(ie::att::launch_projected<T>(p, stream, threads));
                return 0;
              });
            },
            stream);
        const double tbps = bytes / 2 / (ms * 1e-3) / 1e12;
        printf("%-14s %-5s %-26s T%-5d %9.4f %7.2f %9.2f %7.0f%%\n", "projected", dt_name(t), shape, threads, ms, tbps,
               copy_tbps, 100 * tbps / copy_tbps);
        if (csv)
          fprintf(csv, "projected,%s,%lld,10,4,16,1,projected,%d,%.5f,%.3f,%.3f,%.1f,\n", dt_name(t),
                  static_cast<long long>(batch), threads, ms, tbps, copy_tbps, 100 * tbps / copy_tbps);
      }
    }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) { return lab::run_lab(argc, argv, validate, time_targets); }
