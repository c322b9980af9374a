// Lab for the fused set's LayerNorm and LayerNorm + activation kernels (layers/layer_norm/layer_norm_fused.cuh):
// a float64 CPU reference, validation of every kernel shape on odd row counts and widths in fp32, fp16 and bf16
// with each activation, and timings in TB/s (bytes read + written) against a device-to-device copy of the same
// bytes measured in the same run (the copy is the floor: LayerNorm reads each element once and writes it once).
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
//        tests/kernels/layer_norm_lab.cu -o layer_norm_lab
// Run:
//   ./layer_norm_lab                validate, then time the target shapes (every kernel shape that takes them)
//   --check-only   validate only;   --no-validate   timing only;   --filter S   timings whose name contains S
//   --csv PATH     timings as CSV
// Exit status: non-zero when a check fails or a CUDA call errs; 0 with a message when there is no GPU.
//
// Measured (H200, keep this current; TB/s = (read + write bytes) / median time; the copy of the same bytes in the
// same run in brackets; files in tools/results/h200/ssa_fused/):
//   fp32 LN + GELU   16384 x 4096: block T256 x4 3.89 TB/s [4.14]   262144 x 64: G4 x4 3.25 [3.46]
//                    1048576 x 320: G16 x5 4.19 [4.22]
//   fp32 LN alone    the same shapes at 3.95 / 3.59 / 4.17 TB/s: at the copy.
//   bf16 LN + GELU   16384 x 4096: 2.11 TB/s [3.57], 262144 x 64: 1.86 [3.33], 1048576 x 320: 2.20 [4.18]:
//                    compute-bound on the activation (two elements per 4 bytes); the next thing to cut.
//   Later (tools/results/h200/layer_norm_stream/call_a/, two rounds, the plain group kernel against the streaming
//   one): fp32 LN + GELU 16384 x 4096 3.95 TB/s [4.13], 262144 x 64 G4 x4 plain 3.50 [3.48], 1048576 x 320 G16 x5
//   plain 4.18 [4.21]; bf16 LN + GELU 262144 x 64 G4 x2 2.04 -> 2.34 TB/s streamed, 1048576 x 320 G8 x5 2.91 ->
//   3.08, 655360 x 64 2.36 -> 2.68, 16384 x 4096 (block T128 x4) 2.61.
// Variants and what was learned:
//   - Streaming group kernel (layer_norm_group_stream_kernel): a grid of one wave, each group walking rows with the
//     next row's packs requested before this row's math, scale and bias in registers. 16-bit rows: faster at every
//     row count (ms, plain -> stream: bf16 + GELU 262144 x 64 G4 x2 0.0330 -> 0.0289, 655360 x 64 0.0711 ->
//     0.0625, 1048576 x 320 G8 x5 0.462 -> 0.436, 5120 x 64 0.0059 -> 0.0052). Float rows past one wave: slower
//     (1048576 x 320 G16 x5 0.643 -> 0.690, 655360 x 64 G4 x4 0.0864 -> 0.0995: 91 registers against 64), except
//     with one pack per lane (G16 x1 0.0996 -> 0.0891, still behind G4 x4 plain). Scale and bias loaded per row
//     instead of held (stream-ldg) lost everywhere (bf16 262144 x 64: 0.0311 against 0.0289; removed since, its
//     figures in call_a/ and call_b/). Float rows up to two
//     waves gain (call_b: 40960 x 64 G4 x4 0.0097 -> 0.0078, 5120 x 64 0.0062 -> 0.0052). Kept: 16-bit rows always
//     stream, float rows up to two waves of the streaming kernel's CTAs.
//   - Ties among 2-4 packs per lane now go to the most packs (fp32 262144 x 64 + GELU: G4 x4 0.0384 ms against
//     the G8 x2 chosen before, 0.0400; 655360 rows 0.0864 against 0.0915).
//   - GELU through erff made fp32 LN + GELU compute-bound (3.25 / 2.45 / 3.60 TB/s, bf16 1.5 TB/s); the
//     erfc approximation (A&S 7.1.26, activation_device.cuh) and one activation switch per 16-byte pack instead of
//     per element brought fp32 to the figures above.
//   - Lanes per row: for 64-wide rows G16 x1 (0.055 ms) loses to G4 x4 (0.046) and G8 x2 (0.047) in fp32 with GELU:
//     more packs per lane keep more loads in flight; choose() prefers 2-4 packs per lane on ties.
//   - One CTA per row with the row in registers: T256 x4 beats T512 x2 and T1024 x1 (0.165 / 0.194 / 0.267 ms at
//     16384 x 4096 before the GELU change); the three-pass generic kernel runs at 59% of the copy there.
//   - ptxas (CUDA 13.0, -Xptxas -v on this file): the streaming kernels with scale and bias held use 91 (fp32 G4 x4)
//     to 240 registers (16-bit x6); 16-bit streaming kernels with 2 packs per lane spill 8 bytes at 72 registers
//     (the G4 x2 one is the bf16 64-wide choice, measured with it); plain fp32 group kernels with 6 packs spill 16;
//     block T1024 x8 (16-bit) spills 100; every other instantiation 0.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "layers/layer_norm/layer_norm_fused.cuh"
#include "tests/kernels/lab_util.cuh"

namespace {

using ie::ln::Act;
using ie::ln::Choice;

using lab::by_type;
using lab::bytes_of;
using lab::DT;
using lab::dt_name;
using lab::dt_size;
using lab::floats_of;
using lab::round_to;

const char* act_name(Act a) {
  switch (a) {
    case Act::Relu:
      return "relu";
    case Act::Gelu:
      return "gelu";
    case Act::GeluTanh:
      return "gelu_tanh";
    case Act::Tanh:
      return "tanh";
    case Act::Sigmoid:
      return "sigmoid";
    default:
      return "none";
  }
}

using lab::DeviceBuf;

// Float64 reference of one row.
void reference_row(const float* x, const float* s, const float* b, int n, double eps, Act a, double* y,
                   double* mean_out, double* inv_out) {
  double mean = 0;
  for (int i = 0; i < n; ++i) mean += x[i];
  mean /= n;
  double var = 0;
  for (int i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
  var /= n;
  const double inv = 1 / std::sqrt(var + eps);
  for (int i = 0; i < n; ++i) y[i] = lab::activation_ref(a, (x[i] - mean) * inv * s[i] + (b ? b[i] : 0.0));
  *mean_out = mean;
  *inv_out = inv;
}

std::string describe(const Choice& c) {
  char buf[64];
  if (c.kind == Choice::kGroup)
    snprintf(buf, sizeof buf, "group G%d x%d%s", c.lanes, c.iters,
             c.stream == 1   ? " stream"
             : c.stream == 0 ? " plain"
                             : "");
  else if (c.kind == Choice::kBlock)
    snprintf(buf, sizeof buf, "block T%d x%d", c.lanes, c.iters);
  else
    snprintf(buf, sizeof buf, "generic");
  return buf;
}

// Tolerance per element type, against the float64 reference: outputs are O(1) (x has an offset of 3 and
// spread 1; scale in [0.5, 1.5], bias in [-1, 1]). fp32: float statistics; 16-bit: one rounding of the output
// (2^-11 relative for fp16, 2^-8 for bf16) on top of the input's rounding, which the reference sees too.
double tolerance(DT t) { return t == DT::F32 ? 2e-5 : t == DT::F16 ? 2e-3 : 1.6e-2; }

// Validates one case with choice `c` (or the automatic one); returns the number of failures (0 or 1).
int check_case(DT t, int64_t rows, int n, Act act, bool bias, bool stats, bool misalign, const Choice* forced,
               unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> ux(2.f, 4.f), us(0.5f, 1.5f), ub(-1.f, 1.f);
  std::vector<float> x(rows * n), s(n), b(n);
  for (float& v : x) v = ux(rng);
  for (float& v : s) v = us(rng);
  for (float& v : b) v = ub(rng);
  x = round_to(t, x), s = round_to(t, s), b = round_to(t, b);
  const int es = dt_size(t);
  const size_t off = misalign ? es : 0;  // one element past 16-byte alignment
  DeviceBuf dx(x.size() * es + 16), dy(x.size() * es + 16), ds(n * es + 16), db(n * es + 16);
  DeviceBuf dmean(rows * 4), dinv(rows * 4);
  CUDA_CHECK(cudaMemcpy(static_cast<char*>(dx.p) + off, bytes_of(t, x).data(), x.size() * es, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(ds.p, bytes_of(t, s).data(), n * es, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db.p, bytes_of(t, b).data(), n * es, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dy.p, 0xff, x.size() * es + 16));  // NaN patterns: an unwritten output fails
  ie::ln::Params p;
  p.x = static_cast<char*>(dx.p) + off;
  p.y = static_cast<char*>(dy.p) + off;
  p.scale = ds.p;
  p.bias = bias ? db.p : nullptr;
  p.mean = stats ? static_cast<float*>(dmean.p) : nullptr;
  p.inv_std = stats ? static_cast<float*>(dinv.p) : nullptr;
  p.rows = rows;
  p.n = n;
  p.eps = 1e-5f;
  p.act = act;
  const Choice c = forced ? *forced : ie::ln::choose(n, es, !misalign);
  by_type(t, [&](auto tag) {
    CUDA_CHECK(ie::ln::launch<decltype(tag)>(p, c, 0));
    return 0;
  });
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> yb(x.size() * es);
  CUDA_CHECK(cudaMemcpy(yb.data(), static_cast<char*>(dy.p) + off, yb.size(), cudaMemcpyDeviceToHost));
  const std::vector<float> y = floats_of(t, yb);
  std::vector<float> gm(rows), gi(rows);
  if (stats) {
    CUDA_CHECK(cudaMemcpy(gm.data(), dmean.p, rows * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gi.data(), dinv.p, rows * 4, cudaMemcpyDeviceToHost));
  }
  double worst = 0, worst_stats = 0;
  std::vector<double> ref(n);
  for (int64_t r = 0; r < rows; ++r) {
    double mean, inv;
    reference_row(&x[r * n], s.data(), bias ? b.data() : nullptr, n, 1e-5, act, ref.data(), &mean, &inv);
    for (int i = 0; i < n; ++i) {
      const double err = std::fabs(y[r * n + i] - ref[i]) / (1 + std::fabs(ref[i]));
      worst = std::isnan(err) ? 1e30 : std::max(worst, err);
    }
    if (stats) {
      // Float statistics of the same (rounded) inputs: within float rounding whatever the element type.
      worst_stats = std::max(worst_stats, std::fabs(gm[r] - mean) / (1 + std::fabs(mean)));
      worst_stats = std::max(worst_stats, std::fabs(gi[r] - inv) / inv);
      if (std::isnan(gm[r]) || std::isnan(gi[r])) worst_stats = 1e30;
    }
  }
  constexpr double kStatsTol = 1e-4;
  const bool ok = worst <= tolerance(t) && worst_stats <= kStatsTol;
  char stat_note[48] = "";
  if (stats) snprintf(stat_note, sizeof stat_note, " +stats (err %.1e)", worst_stats);
  printf("%s %-5s %6lldx%-6d %-9s %-16s%s%s%s  max err %.2e (tol %.1e)\n", ok ? "PASS" : "FAIL", dt_name(t),
         static_cast<long long>(rows), n, act_name(act), describe(c).c_str(), bias ? "" : " no-bias", stat_note,
         misalign ? " misaligned" : "", worst, tolerance(t));
  return ok ? 0 : 1;
}

int validate() {
  int failures = 0;
  unsigned seed = 1;
  const DT types[] = {DT::F32, DT::F16, DT::BF16};
  // Widths across the three kernels: 16/48/64 (small groups), 320 (G16 x5 fp32), 1000, 4096 and 20000 (block),
  // 33, 1001 and 70001 (generic: not a multiple of the pack), 1 (a row of one).
  const int widths[] = {16, 48, 64, 320, 1000, 2048, 4096, 20000, 33, 1001, 70001, 1};
  const int64_t row_counts[] = {1, 7, 10001};
  for (DT t : types)
    for (int n : widths)
      for (int64_t rows : row_counts) {
        if (rows * n > 50'000'000) continue;  // the CPU reference's time
        failures += check_case(t, rows, n,
                               (seed % 3 == 0)   ? Act::None
                               : (seed % 3 == 1) ? Act::Gelu
                                                 : Act::GeluTanh,
                               seed % 5 != 0, rows == 7, false, nullptr, seed);
        ++seed;
      }
  // Every activation; misaligned pointers take the generic kernel; stats from each kernel.
  for (Act a : {Act::None, Act::Relu, Act::Gelu, Act::GeluTanh, Act::Tanh, Act::Sigmoid})
    failures += check_case(DT::BF16, 13, 64, a, true, false, false, nullptr, seed++);
  failures += check_case(DT::F32, 9, 64, Act::Gelu, true, true, true, nullptr, seed++);
  failures += check_case(DT::F16, 5, 4096, Act::None, true, true, false, nullptr, seed++);
  // Every instantiated kernel shape forced on a width it covers (not only the ones choose() picks).
  for (DT t : types) {
    const int v = 16 / dt_size(t);
    for (int g : {4, 8, 16, 32})
      for (int it : {1, 2, 3, 4, 5, 6, 8}) {
        const Choice c{Choice::kGroup, g, it};
        const int n = (g * it - (g > 4 ? 1 : 0)) * v;  // one pack short of full where possible
        failures += check_case(t, 37, n, Act::Gelu, true, true, false, &c, seed++);
        // The streaming kernel on a small grid, so that every group walks several rows (the last ones past the end).
        const Choice cs{Choice::kGroup, g, it, 1, 2};
        failures += check_case(t, 37, n, Act::Gelu, true, true, false, &cs, seed++);
        failures += check_case(t, 1001, n, Act::GeluTanh, (seed & 1) != 0, false, false, &cs, seed++);
        const Choice cl{Choice::kGroup, g, it, 1, 3};
        failures += check_case(t, 1001, n, Act::Gelu, true, true, false, &cl, seed++);
      }
    for (int th : {128, 256, 512, 1024})
      for (int it : {1, 2, 4, 8}) {
        const Choice c{Choice::kBlock, th, it};
        const int n = (th * it - 3) * v;
        if (static_cast<int64_t>(n) * 11 > 50'000'000) continue;
        failures += check_case(t, 11, n, Act::GeluTanh, true, true, false, &c, seed++);
      }
  }
  return failures;
}

// ---- timing ----------------------------------------------------------------------------------------------------

struct Target {
  int64_t rows;
  int n;
  DT t;
  Act act;
};

// Every kernel shape that takes width n (the automatic choice first).
std::vector<Choice> choices_for(int n, int es) {
  std::vector<Choice> out = {ie::ln::choose(n, es, true)};
  const int v = 16 / es;
  if (n % v) return out;
  const int packs = n / v;
  auto add = [&](Choice c) {
    for (const Choice& o : out)
      if (o.kind == c.kind && o.lanes == c.lanes && o.iters == c.iters && o.stream == c.stream) return;
    out.push_back(c);
  };
  if (packs <= 256)
    for (int g : {4, 8, 16, 32}) {
      const int it = ie::ln::group_iters((packs + g - 1) / g);
      if (it > 8) continue;
      for (int st : {0, 1}) add({Choice::kGroup, g, it, st});
    }
  for (int th : {128, 256, 512, 1024}) {
    const int raw = (packs + th - 1) / th;
    if (raw <= 8) add({Choice::kBlock, th, ie::ln::block_iters(raw)});
  }
  add({Choice::kGeneric, 0, 0});
  return out;
}

void time_targets(const std::string& filter, FILE* csv) {
  const std::vector<Target> targets = {
      {16384, 4096, DT::F32, Act::Gelu},  {262144, 64, DT::F32, Act::Gelu},  {1048576, 320, DT::F32, Act::Gelu},
      {16384, 4096, DT::F32, Act::None},  {262144, 64, DT::F32, Act::None},  {1048576, 320, DT::F32, Act::None},
      {16384, 4096, DT::BF16, Act::Gelu}, {262144, 64, DT::BF16, Act::Gelu}, {1048576, 320, DT::BF16, Act::Gelu},
      {5120, 64, DT::BF16, Act::Gelu},    // the SSA at batch 512 (rows = batch x 10 slices)
      {655360, 64, DT::BF16, Act::Gelu},  // the SSA at batch 65536
      {655360, 64, DT::F32, Act::Gelu},   {5120, 64, DT::F32, Act::Gelu},  // the SSA in fp32 at batch 512: one wave
      {40960, 64, DT::F32, Act::None},                                     // at batch 4096
  };
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  printf(
      "== timing: median of 50 launches after 5 warm-ups, inputs rotated over 3 buffers; TB/s = (read + write) "
      "bytes / time; copy = cudaMemcpyAsync of the same bytes ==\n");
  printf("%-6s %-16s %-9s %-16s %9s %8s %8s %8s\n", "type", "rows x n", "act", "kernel", "ms", "TB/s", "copy TB/s",
         "of copy");
  if (csv) fprintf(csv, "type,rows,n,act,kernel,ms,tbps,copy_tbps,pct_of_copy\n");
  for (const Target& tg : targets) {
    const int es = dt_size(tg.t);
    const size_t bytes = static_cast<size_t>(tg.rows) * tg.n * es;
    constexpr int kBuffers = 3;
    std::vector<std::unique_ptr<DeviceBuf>> xs;
    for (int i = 0; i < kBuffers; ++i) {
      xs.push_back(std::make_unique<DeviceBuf>(bytes));
      // Non-zero data: a ramp with an offset per buffer, any bit pattern of the element type works for timing.
      std::vector<float> row(tg.n);
      for (int k = 0; k < tg.n; ++k) row[k] = 1.f + 0.001f * k + i;
      const std::vector<unsigned char> rb = bytes_of(tg.t, row);
      CUDA_CHECK(cudaMemcpy(xs.back()->p, rb.data(), rb.size(), cudaMemcpyHostToDevice));
      for (size_t filled = rb.size(); filled < bytes; filled *= 2)
        CUDA_CHECK(cudaMemcpy(static_cast<char*>(xs.back()->p) + filled, xs.back()->p, std::min(filled, bytes - filled),
                              cudaMemcpyDeviceToDevice));
    }
    DeviceBuf y(bytes), s(tg.n * es), b(tg.n * es);
    std::vector<float> ones(tg.n, 1.f);
    CUDA_CHECK(cudaMemcpy(s.p, bytes_of(tg.t, ones).data(), tg.n * es, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b.p, bytes_of(tg.t, ones).data(), tg.n * es, cudaMemcpyHostToDevice));
    const float copy_ms = lab::median_ms(
        [&](int i) { CUDA_CHECK(cudaMemcpyAsync(y.p, xs[i % kBuffers]->p, bytes, cudaMemcpyDeviceToDevice, stream)); },
        stream);
    const double copy_tbps = 2.0 * bytes / (copy_ms * 1e-3) / 1e12;
    for (const Choice& c : choices_for(tg.n, es)) {
      char name[128];
      snprintf(name, sizeof name, "%s %lldx%d %s %s", dt_name(tg.t), static_cast<long long>(tg.rows), tg.n,
               act_name(tg.act), describe(c).c_str());
      if (!filter.empty() && std::string(name).find(filter) == std::string::npos) continue;
      ie::ln::Params p;
      p.y = y.p, p.scale = s.p, p.bias = b.p, p.rows = tg.rows, p.n = tg.n, p.act = tg.act;
      const float ms = lab::median_ms(
          [&](int i) {
            p.x = xs[i % kBuffers]->p;
            by_type(tg.t, [&](auto tag) {
              CUDA_CHECK(ie::ln::launch<decltype(tag)>(p, c, stream));
              return 0;
            });
          },
          stream);
      const double tbps = 2.0 * bytes / (ms * 1e-3) / 1e12;
      char rows_n[32];
      snprintf(rows_n, sizeof rows_n, "%lldx%d", static_cast<long long>(tg.rows), tg.n);
      printf("%-6s %-16s %-9s %-16s %9.4f %8.2f %8.2f %7.0f%%\n", dt_name(tg.t), rows_n, act_name(tg.act),
             describe(c).c_str(), ms, tbps, copy_tbps, 100 * tbps / copy_tbps);
      if (csv)
        fprintf(csv, "%s,%lld,%d,%s,%s,%.5f,%.3f,%.3f,%.1f\n", dt_name(tg.t), static_cast<long long>(tg.rows), tg.n,
                act_name(tg.act), describe(c).c_str(), ms, tbps, copy_tbps, 100 * tbps / copy_tbps);
      fflush(stdout);
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) { return lab::run_lab(argc, argv, validate, time_targets); }
