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
// Measured (H200; TB/s = (3 reads + 1 write) bytes / median time, the copy of the same bytes in brackets):
//   (filled in from the first GPU run)
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

int check_case(DT t, const Shape& s, int threads, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uqk(-2.f, 2.f), uv(-1.f, 1.f);
  const size_t n = static_cast<size_t>(s.batch) * s.seq * s.heads * s.dim;
  std::vector<float> q(n), k(n), v(n), cos, sin;
  for (float& x : q) x = uqk(rng);
  for (float& x : k) x = uqk(rng);
  for (float& x : v) x = uv(rng);
  q = round_to(t, q), k = round_to(t, k), v = round_to(t, v);
  tables(s, cos, sin);
  const int es = dt_size(t);
  DeviceBuf dq(n * es), dk(n * es), dv(n * es), dy(n * es), dc(cos.size() * 4 + 16), ds(sin.size() * 4 + 16);
  CUDA_CHECK(cudaMemcpy(dq.p, bytes_of(t, q).data(), n * es, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dk.p, bytes_of(t, k).data(), n * es, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dv.p, bytes_of(t, v).data(), n * es, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dc.p, cos.data(), cos.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(ds.p, sin.data(), sin.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dy.p, 0xff, n * es));  // NaN patterns: an unwritten output fails
  ie::att::Params p;
  p.q = dq.p, p.k = dk.p, p.v = dv.p, p.y = dy.p;
  p.cos = s.rope ? static_cast<const float*>(dc.p) : nullptr;
  p.sin = s.rope ? static_cast<const float*>(ds.p) : nullptr;
  p.batch = s.batch, p.seq = s.seq, p.heads = s.heads, p.dim = s.dim;
  p.scale = static_cast<float>(1 / std::sqrt(static_cast<double>(s.dim)));
  by_type(t, [&](auto tag) {
    CUDA_CHECK(ie::att::launch<decltype(tag)>(p, 0, threads));
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
  printf("%s %-5s B%-6lld S%-4d H%-3d D%-4d %-5s T%-5d max err %.2e (tol %.1e)\n", ok ? "PASS" : "FAIL", dt_name(t),
         static_cast<long long>(s.batch), s.seq, s.heads, s.dim, s.rope ? "rope" : "plain", threads, worst,
         tolerance(t));
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
    for (const Shape& s : shapes) failures += check_case(t, s, 256, seed++);
  // Every CTA size on shapes where it changes the units per CTA (and a last CTA with fewer units).
  for (int threads : {32, 64, 128, 512, 1024}) {
    failures += check_case(DT::BF16, {1001, 10, 4, 16, true}, threads, seed++);
    failures += check_case(DT::F32, {37, 20, 3, 24, true}, threads, seed++);
  }
  return failures;
}

// ---- timing ----------------------------------------------------------------------------------------------------
struct Target {
  Shape s;
  DT t;
  const char* what;
};

void time_targets(const std::string& filter, FILE* csv) {
  const std::vector<Target> targets = {
      {{512, 10, 4, 16, true}, DT::BF16, "SSA batch 512"}, {{65536, 10, 4, 16, true}, DT::BF16, "SSA 65536"},
      {{65536, 10, 4, 16, true}, DT::F16, "SSA 65536"},    {{65536, 10, 4, 16, true}, DT::F32, "SSA 65536"},
      {{4096, 64, 4, 32, true}, DT::BF16, "S64 D32"},      {{1024, 128, 8, 64, true}, DT::BF16, "S128 D64"},
      {{512, 128, 4, 128, false}, DT::BF16, "S128 D128"},
  };
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  printf(
      "== timing: median of 50 launches after 5 warm-ups, inputs rotated over 3 buffer sets; TB/s = (3 reads + 1 "
      "write) bytes / time; copy = cudaMemcpyAsync moving the same bytes; TFLOP/s = 4 S^2 D per head ==\n");
  printf("%-14s %-5s %-26s %-6s %9s %7s %9s %8s %8s\n", "target", "type", "shape", "CTA", "ms", "TB/s", "copy TB/s",
         "of copy", "TFLOP/s");
  if (csv) fprintf(csv, "target,type,batch,seq,heads,dim,rope,threads,ms,tbps,copy_tbps,pct_of_copy,tflops\n");
  for (const Target& tg : targets) {
    const Shape& s = tg.s;
    const int es = dt_size(tg.t);
    const size_t n = static_cast<size_t>(s.batch) * s.seq * s.heads * s.dim;
    constexpr int kSets = 3;
    std::vector<std::unique_ptr<DeviceBuf>> bufs;
    std::vector<float> ramp(n);
    for (int i = 0; i < kSets * 3; ++i) {
      for (size_t e = 0; e < n; ++e) ramp[e] = static_cast<float>((e * 7 + i * 13) % 97) / 97.f - 0.5f;
      bufs.push_back(std::make_unique<DeviceBuf>(n * es));
      CUDA_CHECK(cudaMemcpy(bufs.back()->p, bytes_of(tg.t, ramp).data(), n * es, cudaMemcpyHostToDevice));
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
    for (int threads : {64, 128, 256, 512}) {
      char shape[64];
      snprintf(shape, sizeof shape, "B%lld S%d H%d D%d%s", static_cast<long long>(s.batch), s.seq, s.heads, s.dim,
               s.rope ? " rope" : "");
      const std::string name = std::string(tg.what) + " " + dt_name(tg.t) + " " + shape;
      if (!filter.empty() && name.find(filter) == std::string::npos) continue;
      const float ms = lab::median_ms(
          [&](int i) {
            ie::att::Params p;
            const int set = i % kSets;
            p.q = bufs[set * 3]->p, p.k = bufs[set * 3 + 1]->p, p.v = bufs[set * 3 + 2]->p, p.y = y.p;
            p.cos = s.rope ? static_cast<const float*>(dc.p) : nullptr;
            p.sin = s.rope ? static_cast<const float*>(ds.p) : nullptr;
            p.batch = s.batch, p.seq = s.seq, p.heads = s.heads, p.dim = s.dim;
            p.scale = 0.25f;
            by_type(tg.t, [&](auto tag) {
              CUDA_CHECK(ie::att::launch<decltype(tag)>(p, stream, threads));
              return 0;
            });
          },
          stream);
      const double tbps = bytes / (ms * 1e-3) / 1e12;
      const double tflops = flops / (ms * 1e-3) / 1e12;
      printf("%-14s %-5s %-26s T%-5d %9.4f %7.2f %9.2f %7.0f%% %8.2f\n", tg.what, dt_name(tg.t), shape, threads, ms,
             tbps, copy_tbps, 100 * tbps / copy_tbps, tflops);
      if (csv)
        fprintf(csv, "%s,%s,%lld,%d,%d,%d,%d,%d,%.5f,%.3f,%.3f,%.1f,%.3f\n", tg.what, dt_name(tg.t),
                static_cast<long long>(s.batch), s.seq, s.heads, s.dim, s.rope ? 1 : 0, threads, ms, tbps, copy_tbps,
                100 * tbps / copy_tbps, tflops);
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) { return lab::run_lab(argc, argv, validate, time_targets); }
