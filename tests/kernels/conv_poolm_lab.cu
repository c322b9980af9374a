// Lab for the pool-on-M fused Conv + bias + ReLU + 2x2 MaxPool kernel (layers/fused_conv/fused_conv_poolm.cuh):
// a float64 CPU reference (inputs and weights rounded to the operand type, as the kernel sees them), validation
// on odd shapes and batches for each tile configuration and element type (a NaN in the input stays in its pooled
// outputs, nothing is written past the batch), then timings of the conv net's conv1 (1 -> 4 channels, 7x7, 86x86,
// 2x2 pool) against the stacked kernel, and in tf32 mode (split products) against the FFMA kernel, in the same run.
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
//     tests/kernels/conv_poolm_lab.cu -o conv_poolm_lab
//   ./conv_poolm_lab [--check-only] [--no-validate] [--filter S] [--csv PATH]
//   POOLM_MAX_BATCH=N ./conv_poolm_lab --check-only     the checks of at most N images (sanitizer runs)
//
// Floors at batch 10000 (conv1, H200): 24.6 GFLOP of kernel taps (~31 us at 790 TFLOP/s); bytes: 296 MB of
// float32 input (148 MB in bf16) and 128 MB of bf16 output, 0.10 ms (0.066 ms) at ~4.2 TB/s.
//
// Variants and figures (H200, conv1, bf16 out, ms, median of 50 launches with the launch, two rounds each; the
// stacked kernel stk_w5_n5_px3200 in the same runs: 10000 0.306 (f32 in) / 0.295 (bf16 in), 1000 0.0394 / 0.0372,
// 1 0.0097 / 0.0100; tools/results/h200/conv_poolm/):
//   P1. one n-tile at a time, each warp staging whole rows one word per lane (call_a): 10000 0.398 / 0.380, 1000
//       0.0517 / 0.0481, 1 0.0271 / 0.0262 (W8: 0.0163)
//   P2. five n-tiles at once (independent accumulators), and bands of 4 pooled rows per tile (call_b): 10000
//       0.396 / 0.373; bands 0.563 / 0.530 but batch 1 0.0068 / 0.0065 (10 CTAs per image): the MMA chain was not
//       the limit, the staging was (one load in flight per thread, then its store)
//   P3. staging with 8 words' loads in flight per thread before their stores, a flat word index (call_c, kept):
//       10000 0.307 / 0.311 (the stacked kernel's 0.306 / 0.295), 1000 0.0360 / 0.0409 (0.0394 / 0.0372), batch 1
//       in bands of 4 rows 0.0053 / 0.0052 (0.0097 / 0.0100). The engine's tuner takes it among the fused conv's
//       candidates (poolm_w4_n5, poolm_w8_n5, poolm_w4_n5_r4) and keeps the winner per shape and batch.
//   Where P3's instructions went (ncu per line, 10000 float32 images, tools/results/h200/conv_profile/call_b):
//   196 M warp instructions, 19,600 an image: staging about 30% (index arithmetic, bounds, the global loads),
//   the B loads and MMAs about 35%, the float epilogue about 26%; 6.6 of 16 warps per scheduler active.
//   P4. bulk staging (poolm_*_bulk): thread 0 copies the next image's raw bytes into shared memory by one
//       cp.async.bulk while this one computes, then a pass converts them to operand words (flat plans: word i of
//       a channel is raw pair i); float epilogue (call_c, a build with the float epilogue for 16-bit outputs,
//       since removed): 10000 w4 0.2658, w8 0.2611 (P3 0.3064 in the same call); 1000 w8 0.0348.
//   P5. and the 16-bit epilogue on packed pairs (accumulators start at the bias, conv + bias rounded, then the
//       pool's maxima and the ReLU by max.NaN.bf16x2; kept): 10000 w4 0.2493, w8 0.2464; 1000 w8 0.0332 (call_c);
//       155 M warp instructions at 10000 (call_d). The engine's tuner picks poolm_w8_n5_bulk from 257 to 10000
//       images; conv net bf16 at 10000 0.630 -> 0.568-0.570 ms (call_d).
//   P6. row pairs interleaved in shared memory (a lane's two B words of a k-step, rows 2i and 2i + 1, are one
//       64-bit load; the B loads were 21% of P5's instructions) and passes whose n-tiles and stores are all in
//       bounds without per-tile checks (call_e, against P5 in the same call): 10000 w4 bulk 0.2483 -> 0.2119,
//       w8 bulk 0.2435 -> 0.2329, and with w8's registers capped for 3 CTAs per SM (__launch_bounds__ minimum
//       3: 80 registers instead of 93, kept) 0.2056; 1000 w8 bulk 0.0334 -> 0.0307; batch 1 w8 0.0129 -> 0.0095,
//       r4 0.0056 -> 0.0052. 120 M warp instructions at 10000 (w8).
//   P7. tf32 mode (float32 in and out): the same products split in hi and lo bf16 (fc::WordBf16x3: both images
//       staged, hi and lo weights in registers, lo x hi + hi x lo + hi x hi per k-step), against the FFMA kernels
//       tf32 mode ran conv1 on before (one TF32 rounding of conv1 put the conv net past the tf32 gate). Largest
//       error against the unrounded float32 reference 0.8e-5 .. 1.2e-5 (tolerance 1e-4). 80 registers spill with
//       split words (156 bytes for conv1's 4 k-steps), hence two configurations of their own: 8 warps at 2 CTAs
//       per SM (poolm_w8_n5_bulk_2cta, 120 registers) and 3 n-tiles at 3 CTAs (poolm_w8_n3_bulk).
//       tools/results/h200/tf32_split/call_a/, ms: 10000 FFMA w8_m4_px1024 2.416, split w4_n5_bulk 0.421,
//       w8_n5_bulk (spilling) 0.553, w8_n5_bulk_2cta 0.388 (6.2x FFMA), w8_n3_bulk 0.478; 1000 FFMA 0.245, split
//       2cta 0.0475; batch 1 FFMA rows 0.0119, split r4 0.0056. The conv net in tf32 at 10000: 1.84 ms on an H200
//       (conv1 0.394, conv2 1.428 on the pixels-on-M tf32 kernel), from 3.78 on an H100 before.
//   P8. tried: the conversion pass for flat plans by row pairs (warps) and words (lanes), one division per row pair
//       instead of two FastDivs per 64-bit store (tools/results/h200/poolm_convert/): 10000 w8 bulk 0.2046 ->
//       0.2328 ms, w4 bulk 0.2116 -> 0.2200, 1000 w8 0.0308 -> 0.0338: 43 words a row pair leave 11 of 32 lanes
//       busy in a warp's second pass, and one pair of loads in flight per thread instead of two. Dropped.
//   P9. tried: the conversion pass for flat plans by a running (channel, row pair, word) position per thread and
//       unrolled item, advanced by the stride (no FastDiv per item), and two more bulk shapes at 64 registers: 8
//       warps for 4 CTAs per SM and 16 warps for 2 (tools/results/h200/poolm_counter/, HEAD's lab against the
//       new one in one call, two rounds, ms): 10000 w8 bulk 0.2047 / 0.2046 -> 0.2104 / 0.2102 (80 registers no
//       longer hold the counters: 8 bytes spilled), w4 bulk 0.2116 / 0.2118 -> 0.2072 / 0.2072, split 2cta 0.387
//       -> 0.405; 1000 w4 bulk 0.0331 -> 0.0293, w8 0.0308 -> 0.0314; 4 CTAs of 8 warps 0.2507 (68 bytes
//       spilled), 16 warps 0.2895. The engine's pick at 10000 (w8) gets slower, at 1000 the best gains 5%.
//       Dropped; the checks passed (943) and were clean under the three sanitizers.
//   Next (P6's per-line counts, call_e/lines_bulk_w8.txt): the conversion pass is now about a fifth of the
//   instructions (two FastDivs, bounds and two 8-byte loads per 64-bit store; for one input channel the plane
//   division is not needed), the MMAs 13% and the B loads 10%. Beyond this kernel, conv1 + conv2 in one kernel
//   (the pooled 4x40x40 map written straight into conv2's staged layout in shared memory) removes conv2's staging
//   and prefetch, about half of its instructions by the fused conv lab's profile.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "layers/fused_conv/fused_conv_poolm.cuh"
#include "tests/kernels/conv_pool_reference.h"
#include "tests/kernels/lab_util.cuh"

namespace fc = ie::fused_conv;
using fc::ConvPoolShape;
using fc::Variant;
using lab::DeviceBuf;
using lab::DT;

namespace {

struct Case {
  const char* name;
  int c, h, w, k, r;
};

// The operand type of a Word, for rounding on the host (split words: float32, unrounded: the kernel's hi + lo
// carry about 16 bits of each operand).
template <class Word>
DT word_dt() {
  return fc::kSplitWord<Word> ? DT::F32 : std::is_same_v<Word, fc::WordF16> ? DT::F16 : DT::BF16;
}
template <class Word>
Variant variant_of() {
  return fc::kSplitWord<Word>                ? Variant::kTf32
         : std::is_same_v<Word, fc::WordF16> ? Variant::kMmaF16
                                             : Variant::kMmaBf16;
}
template <class Word>
const char* word_name() {
  return fc::kSplitWord<Word> ? "bf16x3" : std::is_same_v<Word, fc::WordF16> ? "f16" : "bf16";
}

// Float outputs against the float64 reference of the operands the kernel sees: 1e-4; split words against the
// unrounded float32 operands: 1e-4 as well (one TF32 rounding of both operands gives ~1e-3 here).
double tolerance(DT out) { return out == DT::BF16 ? 1e-2 : out == DT::F16 ? 2e-3 : 1e-4; }

// One validation case: returns 1 on failure.
template <class Cfg, class Word, class TIn, class TOut>
int check(const Case& cs, int n, bool with_nan, uint64_t seed) {
  ConvPoolShape s{n, cs.c, cs.h, cs.w, cs.k, cs.r, 0, 2, 2};
  const Variant v = variant_of<Word>();
  fc::PoolMPlan p;
  std::string why;
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const bool whole_chunks = static_cast<size_t>(s.c) * s.h * s.w * sizeof(TIn) % 16 == 0;
  if (!fc::plan_poolm<Cfg, TIn>(s, v, static_cast<int>(prop.sharedMemPerBlockOptin), &p, &why)) {
    if (Cfg::kBulk && !whole_chunks) {  // bulk staging copies whole 16-byte chunks: declining is right
      printf("PASS  %-20s n=%-6d %s %s in: declined as it should: %s\n", cs.name, n, Cfg::kName,
             lab::dt_name(lab::dt_of<TIn>()), why.c_str());
      return 0;
    }
    printf("FAIL  %-20s n=%-6d %s: declined: %s\n", cs.name, n, Cfg::kName, why.c_str());
    return 1;
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> ux(-1.f, 1.f), uw(-0.3f, 0.3f);
  std::vector<float> x(static_cast<size_t>(n) * s.c * s.h * s.w), w(static_cast<size_t>(s.k) * s.c * s.r * s.r), b(s.k);
  for (auto& e : x) e = ux(rng);
  for (auto& e : w) e = uw(rng);
  for (auto& e : b) e = uw(rng);
  if (with_nan) x[(static_cast<size_t>(n / 2) * s.c * s.h + s.h / 2) * s.w + s.w / 2] = NAN;
  // What the kernel computes with: the input in TIn, then in the operand type; the weights in the operand type.
  const DT op = word_dt<Word>();
  std::vector<float> xin = lab::round_to(lab::dt_of<TIn>(), x);
  const std::vector<float> xr = lab::round_to(op, xin), wr = lab::round_to(op, w);
  const std::vector<double> ref = lab::conv_pool_reference(s, lab::to_double(xr), wr, b);

  std::vector<uint4> packed(fc::poolm_weight_bytes(p) / 16);
  fc::poolm_pack_weights<Word>(p, w.data(), packed.data());
  const std::vector<unsigned char> xb = lab::bytes_of(lab::dt_of<TIn>(), xin);
  auto dx = lab::to_device(xb.data(), xb.size()), dw = lab::to_device(packed.data(), packed.size() * 16),
       db = lab::to_device(b.data(), b.size() * 4);
  lab::GuardedOutput out(ref.size(), sizeof(TOut));
  CUDA_CHECK((fc::launch_fused_conv_poolm<Cfg, Word, TIn, TOut>(
      p, static_cast<const TIn*>(dx->p), dw->p, static_cast<const float*>(db->p), static_cast<TOut*>(out.buf.p), 0)));
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<unsigned char> yb = out.fetch();
  // A NaN input reaches every pooled output whose window reads it; the padded taps (zero weights) of a patch
  // narrower than 8 columns also carry it to a neighbour (0 x NaN), as in every fused kernel with padded taps: it
  // must stay inside its image.
  const lab::OutputCheck chk = lab::check_output(ref, lab::floats_of(lab::dt_of<TOut>(), yb), yb, out.out_bytes(), n,
                                                 n / 2, lab::GuardedOutput::kGuardByte);
  const double tol = tolerance(lab::dt_of<TOut>());
  const bool ok = chk.passed(tol, with_nan);
  printf("%s  %-20s n=%-6d %-9s %-4s %s->%s  ks=%d ntiles=%d smem=%d  max err %.2e (tol %.0e)%s\n",
         ok ? "PASS" : "FAIL", cs.name, n, Cfg::kName, word_name<Word>(), lab::dt_name(lab::dt_of<TIn>()),
         lab::dt_name(lab::dt_of<TOut>()), p.ksteps, p.ntiles, p.smem_bytes, chk.worst, tol,
         chk.notes(with_nan).c_str());
  return ok ? 0 : 1;
}

template <class Cfg>
int check_types(const Case& cs, int n, bool with_nan, uint64_t seed) {
  int f = 0;
  f += check<Cfg, fc::WordBf16, float, __nv_bfloat16>(cs, n, with_nan, seed);
  f += check<Cfg, fc::WordBf16, __nv_bfloat16, __nv_bfloat16>(cs, n, with_nan, seed + 1);
  f += check<Cfg, fc::WordBf16, float, float>(cs, n, with_nan, seed + 2);
  f += check<Cfg, fc::WordF16, float, __half>(cs, n, with_nan, seed + 3);
  f += check<Cfg, fc::WordF16, __half, float>(cs, n, with_nan, seed + 4);
  f += check<Cfg, fc::WordF16, __nv_bfloat16, __half>(cs, n, with_nan, seed + 5);  // a 16-bit input converted
  if (cs.c * ((cs.r + 2) / 2) <= fc::kPoolMMaxSplitKSteps)  // tf32 mode: float32 in and out, split products
    f += check<Cfg, fc::WordBf16x3, float, float>(cs, n, with_nan, seed + 6);
  return f;
}

const Case kConv1{"conv1 1x86x86 k4 r7", 1, 86, 86, 4, 7};

int validate() {
  // POOLM_MAX_BATCH=N validates only the cases of at most N images (the sanitizer runs).
  const char* cap = std::getenv("POOLM_MAX_BATCH");
  const int max_n = cap ? std::atoi(cap) : 1 << 30;
  int failures = 0;
  const Case odd[] = {
      {"c1 33x29 k3 r5", 1, 33, 29, 3, 5},
      {"c2 20x21 k4 r3", 2, 20, 21, 4, 3},
      {"c3 17x40 k2 r7", 3, 17, 40, 2, 7},
      {"c4 30x30 k4 r6", 4, 30, 30, 4, 6},
      {"c1 9x8 k1 r7", 1, 9, 8, 1, 7},
      {"c2 15x15 k4 r4", 2, 15, 15, 4, 4},
      {"c1 70x131 k4 r7", 1, 70, 131, 4, 7},
      // Flat (staged rows are input rows) with fewer staged rows than the image has, and with more.
      {"c4 25x54 k3 r7", 4, 25, 54, 3, 7},
      {"c4 23x54 k2 r6", 4, 23, 54, 2, 6},
  };
  uint64_t seed = 1;
  for (const Case& cs : odd)
    for (int n : {1, 7}) {
      failures += check_types<fc::PoolMW4N5>(cs, n, false, seed += 10);
      failures += check_types<fc::PoolMW8N5>(cs, n, n == 7, seed += 10);
      failures += check_types<fc::PoolMW4N1>(cs, n, false, seed += 10);
      failures += check_types<fc::PoolMW4N5R4>(cs, n, n == 7, seed += 10);
      if (cs.c * cs.h * cs.w % 8 == 0) {  // whole 16-byte chunks for every input type
        failures += check_types<fc::PoolMW4N5Bulk>(cs, n, n == 7, seed += 10);
        failures += check_types<fc::PoolMW8N5Bulk>(cs, n, false, seed += 10);
        if (cs.c * ((cs.r + 2) / 2) <= fc::kPoolMMaxSplitKSteps) {  // the split words' own configurations
          failures += check<fc::PoolMW8N5Bulk2, fc::WordBf16x3, float, float>(cs, n, n == 7, seed += 10);
          failures += check<fc::PoolMW8N3Bulk, fc::WordBf16x3, float, float>(cs, n, false, seed += 10);
        }
      }
    }
  for (int n : {1, 7, 1000}) {
    if (n > max_n) continue;
    failures += check_types<fc::PoolMW4N5>(kConv1, n, n == 7, seed += 10);
    failures += check_types<fc::PoolMW8N5>(kConv1, n, false, seed += 10);
    failures += check_types<fc::PoolMW4N5R4>(kConv1, n, n == 1, seed += 10);
    failures += check_types<fc::PoolMW4N5Bulk>(kConv1, n, n == 7, seed += 10);
    failures += check_types<fc::PoolMW8N5Bulk>(kConv1, n, n == 1, seed += 10);
    failures += check<fc::PoolMW8N5Bulk2, fc::WordBf16x3, float, float>(kConv1, n, n == 7, seed += 10);
    failures += check<fc::PoolMW8N3Bulk, fc::WordBf16x3, float, float>(kConv1, n, n == 1, seed += 10);
  }
  if (10001 <= max_n) {
    failures += check<fc::PoolMW4N5, fc::WordBf16, float, __nv_bfloat16>(kConv1, 10001, true, seed += 10);
    failures += check<fc::PoolMW4N5Bulk, fc::WordBf16, float, __nv_bfloat16>(kConv1, 10001, true, seed += 10);
    failures += check<fc::PoolMW8N5Bulk, fc::WordBf16x3, float, float>(kConv1, 10001, true, seed += 10);
    failures += check<fc::PoolMW8N5Bulk2, fc::WordBf16x3, float, float>(kConv1, 10001, false, seed += 10);
    failures += check<fc::PoolMW8N3Bulk, fc::WordBf16x3, float, float>(kConv1, 10001, true, seed += 10);
  }
  // A bulk configuration on a shape whose image is not whole 16-byte chunks declines with the reason.
  {
    fc::PoolMPlan q;
    std::string why;
    if (fc::plan_poolm<fc::PoolMW4N5Bulk, float>(ConvPoolShape{1, 1, 33, 29, 3, 5, 0, 2, 2}, Variant::kMmaBf16,
                                                 227 * 1024, &q, &why))
      ++failures, printf("FAIL  bulk took a 33x29 float image\n");
    else
      printf("declines bulk 33x29 float: %s\n", why.c_str());
  }
  // What the kernel declines, with the reason.
  std::string why;
  fc::PoolMPlan p;
  for (ConvPoolShape s : {ConvPoolShape{1, 1, 86, 86, 5, 7, 0, 2, 2}, ConvPoolShape{1, 1, 86, 86, 4, 7, 1, 2, 2},
                          ConvPoolShape{1, 1, 86, 86, 4, 7, 0, 3, 2}, ConvPoolShape{1, 1, 86, 86, 4, 9, 0, 2, 2}})
    if (!fc::make_poolm_plan(s, Variant::kMmaBf16, 227 * 1024, &p, &why))
      printf("declines k=%d r=%d pad=%d pool=%d: %s\n", s.k, s.r, s.pad, s.pool_window, why.c_str());
    else
      ++failures, printf("FAIL  took k=%d r=%d pad=%d pool=%d\n", s.k, s.r, s.pad, s.pool_window);
  return failures;
}

// ---- timing -------------------------------------------------------------------------------------------------

constexpr int kSets = 3;  // rotated inputs

void report(const std::string& name, FILE* csv, const ConvPoolShape& s, size_t in_bytes, size_t out_bytes, float ms) {
  const double flop = 2.0 * s.n * s.k * (2.0 * fc::pooled_h(s)) * (2.0 * fc::pooled_w(s)) * s.c * s.r * s.r;
  const double bytes = static_cast<double>(in_bytes) * s.n * s.c * s.h * s.w +
                       static_cast<double>(out_bytes) * s.n * s.k * fc::pooled_h(s) * fc::pooled_w(s);
  printf("  %-40s batch %6d %9.4f ms %7.1f TFLOP/s %7.0f GB/s\n", name.c_str(), s.n, ms, flop / ms / 1e9,
         bytes / ms / 1e6);
  if (csv) fprintf(csv, "%s,%d,%.5f,%.2f,%.1f\n", name.c_str(), s.n, ms, flop / ms / 1e9, bytes / ms / 1e6);
}

// Times launch(x, w, bias, y) on the conv net's conv1 at batch s.n: `packed` (host bytes) the kernel's weights,
// weights 0.05 and bias 0.1 (the timing's values; the checks use random ones), TIn in, out_size bytes an output.
template <class TIn, class Launch>
void time_conv1(const std::string& name, FILE* csv, const ConvPoolShape& s, const void* packed, size_t packed_bytes,
                size_t out_size, cudaStream_t stream, Launch launch) {
  const std::vector<float> b(s.k, 0.1f);
  DeviceBuf dw(packed_bytes), db(s.k * 4),
      dy(static_cast<size_t>(s.n) * s.k * fc::pooled_h(s) * fc::pooled_w(s) * out_size);
  CUDA_CHECK(cudaMemcpy(dw.p, packed, packed_bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db.p, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
  auto xs = lab::rotated_inputs<TIn>(static_cast<size_t>(s.n) * s.c * s.h * s.w, kSets);
  const float ms = lab::median_ms(
      [&](int i) {
        CUDA_CHECK(launch(static_cast<const TIn*>(xs[i % kSets]->p), dw.p, static_cast<const float*>(db.p), dy.p));
      },
      stream);
  report(name, csv, s, sizeof(TIn), out_size, ms);
}

ConvPoolShape conv1_at(int n) { return {n, kConv1.c, kConv1.h, kConv1.w, kConv1.k, kConv1.r, 0, 2, 2}; }
bool filtered_out(const std::string& filter, const std::string& name) {
  return !filter.empty() && name.find(filter) == std::string::npos;
}

template <class Cfg, class TIn, class Word = fc::WordBf16, class TOut = __nv_bfloat16>
void time_poolm(const std::string& filter, FILE* csv, int n, cudaStream_t stream) {
  const std::string name = std::string(Cfg::kName) + " " + word_name<Word>() + " " + lab::dt_name(lab::dt_of<TIn>()) +
                           "->" + lab::dt_name(lab::dt_of<TOut>());
  const ConvPoolShape s = conv1_at(n);
  fc::PoolMPlan p;
  std::string why;
  if (filtered_out(filter, name) || !fc::plan_poolm<Cfg, TIn>(s, variant_of<Word>(), 227 * 1024, &p, &why)) return;
  const std::vector<float> w(s.k * s.c * s.r * s.r, 0.05f);
  std::vector<uint4> packed(fc::poolm_weight_bytes(p) / 16);
  fc::poolm_pack_weights<Word>(p, w.data(), packed.data());
  time_conv1<TIn>(name, csv, s, packed.data(), packed.size() * 16, sizeof(TOut), stream,
                  [&](const TIn* x, const void* dw, const float* bias, void* y) {
                    return fc::launch_fused_conv_poolm<Cfg, Word, TIn, TOut>(p, x, dw, bias, static_cast<TOut*>(y),
                                                                             stream);
                  });
}

// tf32 mode's conv1 before the split products: the pixels-on-M FFMA kernel (float32 in and out).
template <class Cfg>
void time_ffma(const std::string& filter, FILE* csv, int n, cudaStream_t stream) {
  const std::string name = std::string(Cfg::kName) + " ffma f32->f32";
  if (filtered_out(filter, name)) return;
  const ConvPoolShape s = conv1_at(n);
  const std::vector<float> w(s.k * s.c * s.r * s.r, 0.05f);
  std::vector<unsigned char> packed(fc::packed_weight_bytes(s, Variant::kFfma));
  fc::pack_weights(s, Variant::kFfma, w.data(), packed.data());
  time_conv1<float>(name, csv, s, packed.data(), packed.size(), 4, stream,
                    [&](const float* x, const void* dw, const float* bias, void* y) {
                      return fc::launch_fused_conv_ffma<Cfg, float, float>(s, x, dw, bias, static_cast<float*>(y),
                                                                           stream);
                    });
}

template <class Cfg, class TIn>
void time_stacked(const std::string& filter, FILE* csv, int n, cudaStream_t stream) {
  const std::string name = std::string(Cfg::kName) + " " + lab::dt_name(lab::dt_of<TIn>()) + "->bf16";
  const ConvPoolShape s = conv1_at(n);
  fc::StackedPlan p;
  if (filtered_out(filter, name) || fc::plan_stacked_here<Cfg, TIn>(s, Variant::kMmaBf16, false, &p) != cudaSuccess)
    return;
  const std::vector<float> w(s.k * s.c * s.r * s.r, 0.05f);
  std::vector<unsigned char> packed(fc::stacked_weight_bytes(s, Variant::kMmaBf16));
  fc::stacked_pack_weights(s, Variant::kMmaBf16, w.data(), packed.data());
  time_conv1<TIn>(name, csv, s, packed.data(), packed.size(), 2, stream,
                  [&](const TIn* x, const void* dw, const float* bias, void* y) {
                    return fc::launch_fused_conv_stacked<Cfg, fc::WordBf16, TIn, __nv_bfloat16>(
                        p, x, dw, bias, static_cast<__nv_bfloat16*>(y), stream);
                  });
}

void time_all(const std::string& filter, FILE* csv) {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  if (csv) fprintf(csv, "kernel,batch,ms,tflops,gbps\n");
  printf("timings, the conv net's conv1 (median of 50 launches, %d rotated inputs; TFLOP/s of kernel taps):\n", kSets);
  for (int n : {10000, 1000, 1}) {
    time_stacked<fc::StackedW5N5, float>(filter, csv, n, stream);
    time_stacked<fc::StackedW5N5, __nv_bfloat16>(filter, csv, n, stream);
    time_poolm<fc::PoolMW4N5, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW4N5, __nv_bfloat16>(filter, csv, n, stream);
    time_poolm<fc::PoolMW8N5, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW8N5, __nv_bfloat16>(filter, csv, n, stream);
    time_poolm<fc::PoolMW4N1, __nv_bfloat16>(filter, csv, n, stream);
    time_poolm<fc::PoolMW4N5R4, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW4N5R4, __nv_bfloat16>(filter, csv, n, stream);
    time_poolm<fc::PoolMW4N5Bulk, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW4N5Bulk, __nv_bfloat16>(filter, csv, n, stream);
    time_poolm<fc::PoolMW8N5Bulk, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW8N5Bulk, __nv_bfloat16>(filter, csv, n, stream);
    // tf32 mode (float32 in and out): the split products against the FFMA kernels the engine ran before them.
    time_ffma<fc::ConvTileLarge>(filter, csv, n, stream);
    time_ffma<fc::ConvTileSmallRows>(filter, csv, n, stream);
    time_poolm<fc::PoolMW4N5, float, fc::WordBf16x3, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW8N5, float, fc::WordBf16x3, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW4N5R4, float, fc::WordBf16x3, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW4N5Bulk, float, fc::WordBf16x3, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW8N5Bulk, float, fc::WordBf16x3, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW8N5Bulk2, float, fc::WordBf16x3, float>(filter, csv, n, stream);
    time_poolm<fc::PoolMW8N3Bulk, float, fc::WordBf16x3, float>(filter, csv, n, stream);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) { return lab::run_lab(argc, argv, validate, time_all); }
