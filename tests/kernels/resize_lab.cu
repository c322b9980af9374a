// Lab for the fused set's Resize kernels (layers/resize/resize_planes.cuh: the plane kernel and the pairs kernel):
// bilinear half_pixel taps built here as the engine builds them, a float64 CPU reference, validation on odd plane
// counts and sizes (up and down) in fp32, fp16 and bf16, from float input and from uint8 scaled by 1/255 or divided
// by 255 (ie.ScaledResize), on both kernels, and timings in TB/s (bytes read + written) against a device-to-device
// copy of the same bytes in the same run: the copy is the floor, since the kernel reads each input once and writes
// each output once.
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
//        tests/kernels/resize_lab.cu -o resize_lab
// Run: ./resize_lab [--check-only] [--no-validate] [--filter S] [--csv PATH]
// Exit status: non-zero when a check fails or a CUDA call errs; 0 with a message when there is no GPU.
//
// Measured (H200, tools/results/h200/pipeline/labs/; TB/s = (read + written bytes) / median time, the copy of the
// same bytes in the same run in brackets):
//   10000 x 28x28 -> 86x86   f32 0.195 ms 1.68 TB/s [3.92]   bf16 0.190 ms 0.86 TB/s [3.58]
//   65536 x 28x28 -> 86x86   f32 1.240 ms 1.73 TB/s [4.29]   bf16 1.210 ms 0.89 TB/s [4.20]
//   2048 x 64x64 -> 128x128  f32 0.087 ms 1.93 TB/s [3.80]   bf16 0.098 ms 0.85 TB/s [3.56]
// Still bound by instructions and latency, not memory (bf16 takes as long as fp32). Variants and what was learned:
//   - one pass, each output from 2x2 taps read from global per output (tap structs in local memory: a 40-byte
//     stack frame): 0.393 ms / 0.407 ms at 10000 (the cuda-reference kernel, one thread per output with int64
//     index division: 0.755 ms in fp32);
//   - fixed tap loops (no stack), row taps in shared memory, column taps in registers: 0.341 / 0.332 ms;
//   - two passes through shared memory (input rows along W, then output rows along H, the same arithmetic):
//     0.219 / 0.201 ms;
//   - the next plane prefetched into registers during the passes (planes up to 1024 elements): the figures above.
//   - more CTAs per SM through fewer registers (64 hold a CTA of 256 threads to 4 per SM), 10000 x 28x28 f32/bf16:
//     3 register columns per lane 0.182/0.186 ms (but 128-wide rows then take the slower path: 0.118 ms against
//     0.087 at 2048 x 64x64); 3 columns with 5 CTAs (48 registers, 48 bytes spilled) 0.188/0.183; 6 CTAs (40
//     registers, 104 bytes spilled) 0.201/0.194; 4 columns with 5 CTAs 0.209/0.197. None is worth its loss
//     elsewhere (tools/results/h200/pipeline/labs/variants/).
//   - the pairs kernel (taps of at most two positions, even output widths): both passes step over the plane's
//     [rows, out_w / 2] column pairs as one flat range (no warp waits on a row's last columns, no lane holds the
//     taps of columns it lacks), taps as 16-byte pairs from shared memory, column pairs stored together; 32
//     registers (8 CTAs per SM against 4). Same call, plane kernel -> pairs kernel (tools/results/h200/
//     scaled_resize/call_a/resize_lab.log):
//       10000 x 28x28 -> 86x86   f32 0.194 -> 0.106 ms   bf16 0.190 -> 0.094   u8->bf16 0.193 -> 0.096
//       65536 x 28x28 -> 86x86   f32 1.240 -> 0.682 ms   bf16 1.210 -> 0.576   u8->bf16 1.232 -> 0.588
//       2048 x 64x64 -> 128x128  f32 0.087 -> 0.085 ms   bf16 0.098 -> 0.098 (128-wide rows already filled warps)
//     uint8 input scaled as it is staged costs nothing measurable (u8->bf16 against bf16 in).
//   - planes in runs per CTA over 4 waves of resident CTAs instead of a persistent grid (so that the kernel shares
//     the GPU with another stream's kernels: the hardware hands out CTAs as SMs free up): no change alone, within
//     the run-to-run spread (call_c, 10000 bf16 pairs / u8->bf16 pairs: 1 wave 0.099 / 0.099 ms, 4 waves 0.109 /
//     0.092, 16 waves 0.108 / 0.093; 65536: 0.583 / 0.591, 0.586 / 0.567, 0.581 / 0.552).
//   - the scaling as a run-time choice between multiply and divide took 78 registers in every kernel (3 CTAs per
//     SM); as a template argument the multiplying kernels keep 64 (plane) and 32 (pairs), the dividing ones 70/40.
// Next: bf16 output still moves half the bytes of f32 in about the same time (1.7-1.9 TB/s of 3.6-4.2): the
// kernel is bound by shared-memory traffic and instructions (4 loads and a store per output pair), not by memory.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "layers/resize/resize_planes.cuh"
#include "tests/kernels/lab_util.cuh"

using namespace lab;
using ie::rsz::DevTaps;
using ie::rsz::PairTaps;

namespace {

// Linear half_pixel taps of `out` positions over `in` (as the engine's taps_of: clamped neighbours).
std::vector<DevTaps> linear_taps(int in, int out) {
  std::vector<DevTaps> taps(out);
  const double scale = static_cast<double>(out) / in;
  for (int y = 0; y < out; ++y) {
    const double x = (y + 0.5) / scale - 0.5;
    const long left = static_cast<long>(std::ceil(x)) - 1;
    const double ratio = x - static_cast<double>(left);
    auto clamp = [in](long i) { return static_cast<int>(std::min<long>(std::max<long>(i, 0), in - 1)); };
    taps[y] = DevTaps{
        {clamp(left), clamp(left + 1), 0, 0}, {static_cast<float>(1 - ratio), static_cast<float>(ratio), 0, 0}, 2};
  }
  return taps;
}

struct Shape {
  long planes;
  int in_h, in_w, out_h, out_w;
  std::string name() const {
    return std::to_string(planes) + "x" + std::to_string(in_h) + "x" + std::to_string(in_w) + "->" +
           std::to_string(out_h) + "x" + std::to_string(out_w);
  }
};

// u8: the input is uint8 scaled by 1/255 as it is staged (ie.ScaledResize), the output of type t. pairs: the taps
// also as pairs, so that the pairs kernel runs (even output widths), else the plane kernel.
struct Setup {
  DeviceBuf in, out, rows, cols, row_pairs, col_pairs;
  ie::rsz::Params p;
  bool u8;
  Setup(const Shape& s, DT t, bool u8_input = false, bool pairs = false)
      : in(s.planes * s.in_h * s.in_w * (u8_input ? 1 : dt_size(t))),
        out(s.planes * s.out_h * s.out_w * dt_size(t)),
        rows(s.out_h * sizeof(DevTaps)),
        cols(s.out_w * sizeof(DevTaps)),
        row_pairs(s.out_h * sizeof(PairTaps)),
        col_pairs(s.out_w * sizeof(PairTaps)),
        u8(u8_input) {
    auto th = linear_taps(s.in_h, s.out_h), tw = linear_taps(s.in_w, s.out_w);
    CUDA_CHECK(cudaMemcpy(rows.p, th.data(), th.size() * sizeof(DevTaps), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(cols.p, tw.data(), tw.size() * sizeof(DevTaps), cudaMemcpyHostToDevice));
    if (pairs) {
      std::vector<PairTaps> ph(th.size()), pw(tw.size());
      if (!ie::rsz::pair_taps(th.data(), s.out_h, ph.data()) || !ie::rsz::pair_taps(tw.data(), s.out_w, pw.data())) {
        fprintf(stderr, "linear taps should pair\n");
        exit(1);
      }
      CUDA_CHECK(cudaMemcpy(row_pairs.p, ph.data(), ph.size() * sizeof(PairTaps), cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(col_pairs.p, pw.data(), pw.size() * sizeof(PairTaps), cudaMemcpyHostToDevice));
      p.row_pairs = static_cast<const PairTaps*>(row_pairs.p);
      p.col_pairs = static_cast<const PairTaps*>(col_pairs.p);
    }
    p.in = in.p;
    p.out = out.p;
    p.planes = s.planes;
    p.in_h = s.in_h;
    p.in_w = s.in_w;
    p.out_h = s.out_h;
    p.out_w = s.out_w;
    p.rows = static_cast<const DevTaps*>(rows.p);
    p.cols = static_cast<const DevTaps*>(cols.p);
    p.in_factor = 1.f / 255.f;
  }
  cudaError_t launch(DT t) {
    return by_type(t, [&](auto tag) {
      using T = decltype(tag);
      return u8 ? ie::rsz::launch<T, uint8_t>(p, nullptr) : ie::rsz::launch<T>(p, nullptr);
    });
  }
};

int validate() {
  int failures = 0;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (const Shape& s : {Shape{1, 28, 28, 86, 86}, Shape{7, 28, 28, 86, 86}, Shape{13, 17, 23, 9, 11},
                         Shape{3, 5, 4, 33, 65}, Shape{2, 1, 9, 1, 40}, Shape{3, 9, 40, 5, 300},
                         Shape{2, 40, 30, 50, 45}, Shape{9001, 5, 6, 7, 8}})  // several planes per CTA
    for (DT t : {DT::F32, DT::F16, DT::BF16})
      for (int mode = 0; mode < 6; ++mode) {  // float input; uint8 times 1/255; uint8 / 255; each with pairs
        const bool u8 = mode % 3 > 0, pairs = mode >= 3;
        Setup st(s, t, u8, pairs);
        st.p.in_divide = mode % 3 == 2;
        if (st.p.in_divide) st.p.in_factor = 255.f;
        std::vector<float> x(s.planes * s.in_h * s.in_w);
        std::vector<uint8_t> raw(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
          raw[i] = static_cast<uint8_t>(rng() % 256);
          x[i] = mode % 3 == 1 ? raw[i] * (1.f / 255.f) : mode % 3 == 2 ? raw[i] / 255.f : u(rng);
        }
        if (!u8) x = round_to(t, x);
        auto bytes = u8 ? std::vector<unsigned char>(raw.begin(), raw.end()) : bytes_of(t, x);
        CUDA_CHECK(cudaMemcpy(st.in.p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
        CUDA_CHECK(st.launch(t));
        std::vector<unsigned char> ob(s.planes * s.out_h * s.out_w * dt_size(t));
        CUDA_CHECK(cudaMemcpy(ob.data(), st.out.p, ob.size(), cudaMemcpyDeviceToHost));
        const std::vector<float> y = floats_of(t, ob);
        auto th = linear_taps(s.in_h, s.out_h), tw = linear_taps(s.in_w, s.out_w);
        const double tol = t == DT::F32 ? 1e-6 : t == DT::F16 ? 1e-3 : 8e-3;
        double worst = 0;
        for (long q = 0; q < s.planes; ++q)
          for (int oy = 0; oy < s.out_h; ++oy)
            for (int ox = 0; ox < s.out_w; ++ox) {
              double want = 0;
              for (int k = 0; k < 2; ++k)
                for (int j = 0; j < 2; ++j)
                  want += double(th[oy].weight[k]) * tw[ox].weight[j] *
                          x[(q * s.in_h + th[oy].index[k]) * s.in_w + tw[ox].index[j]];
              const double got = y[(q * s.out_h + oy) * s.out_w + ox];
              worst = std::max(worst, std::fabs(got - want));
            }
        const bool ok = worst <= tol;
        failures += !ok;
        printf("%s %-22s %-4s %-10s %-6s max |err| %.3g (tol %.3g)\n", ok ? "PASS" : "FAIL", s.name().c_str(),
               dt_name(t),
               mode % 3 == 0   ? ""
               : mode % 3 == 1 ? "u8 * 1/255"
                               : "u8 / 255",
               pairs && s.out_w % 2 == 0 ? "pairs" : "planes", worst, tol);
      }
  return failures;
}

void time_all(const std::string& filter, FILE* csv) {
  if (csv) fprintf(csv, "shape,type,ms,tb_per_s,copy_tb_per_s\n");
  for (const Shape& s : {Shape{10000, 28, 28, 86, 86}, Shape{65536, 28, 28, 86, 86}, Shape{2048, 64, 64, 128, 128}})
    for (DT t : {DT::F32, DT::BF16})
      for (int mode = 0; mode < 8; ++mode) {  // {float, uint8} input x {plane, pairs} kernel; pairs in 1 and 16 waves
        const bool u8 = mode % 2 == 1, pairs = mode >= 2;
        const int waves = mode < 4 ? 4 : mode < 6 ? 1 : 16;
        const std::string name = s.name() + " " + (u8 ? "u8->" : "") + dt_name(t) + (pairs ? " pairs" : "") +
                                 (waves != 4 ? " waves " + std::to_string(waves) : "");
        if (!filter.empty() && name.find(filter) == std::string::npos) continue;
        // Three input sets rotated so that the 50 MB L2 does not hold the input between runs.
        std::vector<std::unique_ptr<Setup>> sets;
        const size_t in_size = u8 ? 1 : dt_size(t);
        for (int k = 0; k < 3; ++k) {
          sets.push_back(std::make_unique<Setup>(s, t, u8, pairs));
          sets.back()->p.waves = waves;
          CUDA_CHECK(cudaMemset(sets.back()->in.p, 0x3c, s.planes * s.in_h * s.in_w * in_size));
        }
        const double bytes = double(s.planes) * (s.in_h * s.in_w * in_size + s.out_h * s.out_w * dt_size(t));
        const float ms = median_ms([&](int i) { CUDA_CHECK(sets[i % 3]->launch(t)); }, nullptr);
        DeviceBuf a(static_cast<size_t>(bytes / 2)), b(static_cast<size_t>(bytes / 2));
        const float copy_ms = median_ms(
            [&](int) {
              CUDA_CHECK(cudaMemcpyAsync(b.p, a.p, static_cast<size_t>(bytes / 2), cudaMemcpyDeviceToDevice));
            },
            nullptr);
        const double tbs = bytes / ms / 1e9, copy_tbs = bytes / copy_ms / 1e9;
        printf("%-34s %8.4f ms  %5.2f TB/s  (copy of the same bytes %5.2f TB/s)\n", name.c_str(), ms, tbs, copy_tbs);
        if (csv)
          fprintf(csv, "%s,%s%s%s w%d,%.5f,%.3f,%.3f\n", s.name().c_str(), u8 ? "u8->" : "", dt_name(t),
                  pairs ? " pairs" : "", waves, ms, tbs, copy_tbs);
      }
}

}  // namespace

int main(int argc, char** argv) { return run_lab(argc, argv, validate, time_all); }
