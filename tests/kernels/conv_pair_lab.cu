// Lab for the conv pair kernel (layers/fused_conv/fused_conv_pair.cuh): a pool-on-M conv feeding a shared-rows
// conv in one kernel, the first one's pooled map kept in shared memory. A float64 CPU reference (inputs and
// weights rounded to the operand type, the first map rounded to it as the kernel stores it), validation on odd
// shapes and batches for each configuration and element type (a NaN in the input stays in its image, nothing is
// written past the batch), then timings of the conv net's conv1 + conv2 against the two kernels the engine runs
// today (poolm_w8_n5_bulk, then shr_w4_n4_px1024 through a bf16 map in memory), in the same run.
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
//     tests/kernels/conv_pair_lab.cu -o conv_pair_lab
//   ./conv_pair_lab [--check-only] [--no-validate] [--filter S] [--csv PATH]
//   PAIR_MAX_BATCH=N ./conv_pair_lab --check-only     the checks of at most N images (sanitizer runs)
//
// Floors at batch 10000 (H200): 24.6 + 64.2 GFLOP of kernel taps (~0.11 ms at 790 TFLOP/s); bytes: 296 MB of
// float32 input and 20 MB of bf16 output, 0.075 ms at ~4.2 TB/s.
//
// Figures (H200, float32 in, bf16 out, ms with the launch, median of 50 over 3 rotated inputs; the two kernels
// apart in the same run; tools/results/h200/conv_pair/call_a):
//   batch                      10000    1000     128       1
//   apart (poolm + shr)        0.498   0.0703  0.0207  0.0195
//   pair_w4 (bulk copy)        0.531   0.0706  0.0216  0.0218
//   pair_w8 (bulk copy)        0.699   0.0798  0.0152  0.0148
//   pair_w4, conv2's weights
//     loaded per image         0.541   0.0708  0.0215  0.0212
//   pair_w4, staged by loads   0.632   0.0797  0.0238  0.0236
// The pair wins at small batches (one CTA per image: no second launch, no map through memory) and loses at large
// ones: 168 registers for conv2's phase hold every CTA at 4 warps x 3 per SM for the conv1 phase too (conv1 alone
// runs 24 warps per SM at 80 registers), and it saves only 11% of the instructions (216 M at 10000 against 120 M +
// 123 M apart; ncu call_a). Per source line (call_b/lines_pair.txt): MMAs 19.5%, conv2's B loads 12.7%, the map
// stores about 17% (a lane's 32-bit word and its twin's two 16-bit halves, divergent by lane half: a shuffle of
// the neighbour's pair would make it one 32-bit store per lane), conv1's B loads 5.5%.
//   The shuffle store (pair_store_map_shfl: one shuffle, one byte permute, one 32-bit store per lane; call_g, same
//   run as apart 0.501 / 0.0697 / 0.0206 / 0.0194): pair_w4_shfl 0.573 / 0.0748 / 0.0226 / 0.0228 (slower: 92 bytes
//   of spills at 168 registers against 40), pair_w8_shfl 0.689 / 0.0786 / 0.0149 / 0.0144 (pair_w8 0.699 / 0.0796
//   / 0.0151 / 0.0147 in that run: 1-2%); two n-tiles per pass (pass boundaries inside rows, checked) 0.652 at
//   10000. The engine keeps the first store.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "layers/fused_conv/fused_conv_pair.cuh"
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
  int c, h, w, k1, r1;  // the first conv (2x2 pool)
  int k2, r2, pool2;    // the second (input: the first one's map)
};

template <class Word>
constexpr Variant variant_of() {
  return std::is_same_v<Word, fc::WordF16> ? Variant::kMmaF16 : Variant::kMmaBf16;
}

double tolerance(DT out) { return out == DT::BF16 ? 1e-2 : 2e-3; }

void shapes_of(const Case& cs, int n, ConvPoolShape* s1, ConvPoolShape* s2) {
  *s1 = ConvPoolShape{n, cs.c, cs.h, cs.w, cs.k1, cs.r1, 0, 2, 2};
  *s2 = ConvPoolShape{n, cs.k1, fc::pooled_h(*s1), fc::pooled_w(*s1), cs.k2, cs.r2, 0, cs.pool2, cs.pool2};
}

// One validation case: returns 1 on failure.
template <class Cfg, class Word, class TIn, class TOut>
int check(const Case& cs, int n, bool bulk, bool with_nan, uint64_t seed) {
  ConvPoolShape s1, s2;
  shapes_of(cs, n, &s1, &s2);
  const Variant v = variant_of<Word>();
  fc::PairPlan p;
  std::string why;
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int smem = static_cast<int>(prop.sharedMemPerBlockOptin);
  const bool whole_chunks = static_cast<size_t>(s1.c) * s1.h * s1.w * sizeof(TIn) % 16 == 0;
  if (!fc::make_pair_plan(s1, s2, v, Cfg::kNW, smem, sizeof(TIn), bulk, &p, &why)) {
    if (bulk && !whole_chunks) {
      printf("PASS  %-28s n=%-6d %s %s in: bulk declined as it should: %s\n", cs.name, n, Cfg::kName,
             lab::dt_name(lab::dt_of<TIn>()), why.c_str());
      return 0;
    }
    printf("FAIL  %-28s n=%-6d %s: declined: %s\n", cs.name, n, Cfg::kName, why.c_str());
    return 1;
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> ux(-1.f, 1.f), uw1(-0.3f, 0.3f), uw2(-0.1f, 0.1f);
  std::vector<float> x(static_cast<size_t>(n) * s1.c * s1.h * s1.w), w1(static_cast<size_t>(s1.k) * s1.c * s1.r * s1.r),
      b1(s1.k), w2(static_cast<size_t>(s2.k) * s2.c * s2.r * s2.r), b2(s2.k);
  for (auto& e : x) e = ux(rng);
  for (auto& e : w1) e = uw1(rng);
  for (auto& e : b1) e = uw1(rng);
  for (auto& e : w2) e = uw2(rng);
  for (auto& e : b2) e = uw2(rng);
  if (with_nan) x[(static_cast<size_t>(n / 2) * s1.c * s1.h + s1.h / 2) * s1.w + s1.w / 2] = NAN;
  const DT op = v == Variant::kMmaF16 ? DT::F16 : DT::BF16;
  const std::vector<float> xin = lab::round_to(lab::dt_of<TIn>(), x);
  const std::vector<double> map =
      lab::conv_pool_reference(s1, lab::to_double(lab::round_to(op, xin)), lab::round_to(op, w1), b1);
  std::vector<float> mapf(map.begin(), map.end());
  const std::vector<double> ref =
      lab::conv_pool_reference(s2, lab::to_double(lab::round_to(op, mapf)), lab::round_to(op, w2), b2);

  const fc::PoolMPlan& pa = p.a;
  std::vector<uint4> pk1(fc::poolm_weight_bytes(pa) / 16);
  fc::poolm_pack_weights<Word>(pa, w1.data(), pk1.data());
  std::vector<unsigned char> pk2(fc::stacked_weight_bytes(s2, v, true));
  fc::stacked_pack_weights(s2, v, w2.data(), pk2.data(), true);
  const std::vector<unsigned char> xb = lab::bytes_of(lab::dt_of<TIn>(), xin);
  auto dx = lab::to_device(xb.data(), xb.size()), dw1 = lab::to_device(pk1.data(), pk1.size() * 16),
       db1 = lab::to_device(b1.data(), b1.size() * 4), dw2 = lab::to_device(pk2.data(), pk2.size()),
       db2 = lab::to_device(b2.data(), b2.size() * 4);
  lab::GuardedOutput out(ref.size(), sizeof(TOut));
  CUDA_CHECK((fc::launch_fused_conv_pair<Cfg, Word, TIn, TOut>(
      p, static_cast<const TIn*>(dx->p), dw1->p, static_cast<const float*>(db1->p), dw2->p,
      static_cast<const float*>(db2->p), static_cast<TOut*>(out.buf.p), 0)));
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<unsigned char> yb = out.fetch();
  // A NaN reaches every output whose windows read it; padded taps (zero weights x NaN) may carry it to
  // neighbours, never out of its image.
  const lab::OutputCheck chk = lab::check_output(ref, lab::floats_of(lab::dt_of<TOut>(), yb), yb, out.out_bytes(), n,
                                                 n / 2, lab::GuardedOutput::kGuardByte);
  const double tol = tolerance(lab::dt_of<TOut>());
  const bool ok = chk.passed(tol, with_nan);
  printf("%s  %-28s n=%-6d %-8s %s %-4s %s->%s rows1=%d ws=%d smem=%d  max err %.2e (tol %.0e)%s\n",
         ok ? "PASS" : "FAIL", cs.name, n, Cfg::kName, p.a.bulk ? "bulk " : "loads", op == DT::F16 ? "f16" : "bf16",
         lab::dt_name(lab::dt_of<TIn>()), lab::dt_name(lab::dt_of<TOut>()), p.rows1, p.b.ws, p.smem_bytes, chk.worst,
         tol, chk.notes(with_nan).c_str());
  return ok ? 0 : 1;
}

template <class Cfg>
int check_types(const Case& cs, int n, bool bulk, bool with_nan, uint64_t seed) {
  int f = 0;
  f += check<Cfg, fc::WordBf16, float, __nv_bfloat16>(cs, n, bulk, with_nan, seed);
  f += check<Cfg, fc::WordBf16, __nv_bfloat16, __nv_bfloat16>(cs, n, bulk, with_nan, seed + 1);
  f += check<Cfg, fc::WordF16, float, __half>(cs, n, bulk, with_nan, seed + 2);
  f += check<Cfg, fc::WordF16, __half, __half>(cs, n, bulk, with_nan, seed + 3);
  return f;
}

const Case kConvNet{"convnet 1x86x86 4r7 16r7p4", 1, 86, 86, 4, 7, 16, 7, 4};

int validate() {
  const char* cap = std::getenv("PAIR_MAX_BATCH");
  const int max_n = cap ? std::atoi(cap) : 1 << 30;
  int failures = 0;
  const Case odd[] = {
      {"c1 61x75 3r5 12r5p2", 1, 61, 75, 3, 5, 12, 5, 2},  // ws past the map's width (zero words)
      {"c2 50x47 4r4 9r7p4", 2, 50, 47, 4, 4, 9, 7, 4},    // odd map width, fewer map rows than staged
      {"c3 40x40 2r3 16r5p2", 3, 40, 40, 2, 3, 16, 5, 2},  // 6 k-steps for the first conv (KS1 8)
      {"c4 44x52 4r7 16r7p4", 4, 44, 52, 4, 7, 16, 7, 4},  // KS1 16
      {"c1 90x37 1r6 10r5p4", 1, 90, 37, 1, 6, 10, 5, 4},  // one channel into the second conv
      {"c1 30x30 4r7 16r7p4", 1, 30, 30, 4, 7, 16, 7, 4},  // the second conv's output 1x1
  };
  uint64_t seed = 1;
  for (const Case& cs : odd)
    for (int n : {1, 7})
      for (bool bulk : {false, true}) {
        failures += check_types<fc::PairW4>(cs, n, bulk, n == 7, seed += 10);
        failures += check_types<fc::PairW4Shfl>(cs, n, bulk, n == 7, seed += 10);
        failures += check<fc::PairW4N2Shfl, fc::WordBf16, float, __nv_bfloat16>(cs, n, bulk, n == 7, seed += 10);
      }
  for (int n : {1, 7, 1000}) {
    if (n > max_n) continue;
    for (bool bulk : {false, true}) {
      failures += check_types<fc::PairW4>(kConvNet, n, bulk, n == 7, seed += 10);
      failures += check<fc::PairW8, fc::WordBf16, float, __nv_bfloat16>(kConvNet, n, bulk, n == 1, seed += 10);
      failures += check<fc::PairW4Reload, fc::WordBf16, float, __nv_bfloat16>(kConvNet, n, bulk, n == 7, seed += 10);
      failures += check_types<fc::PairW4Shfl>(kConvNet, n, bulk, n == 7, seed += 10);
      failures += check<fc::PairW8Shfl, fc::WordBf16, float, __nv_bfloat16>(kConvNet, n, bulk, n == 1, seed += 10);
      failures += check<fc::PairW4N2Shfl, fc::WordF16, float, __half>(kConvNet, n, bulk, n == 7, seed += 10);
    }
  }
  if (10001 <= max_n) {
    failures += check<fc::PairW4, fc::WordBf16, float, __nv_bfloat16>(kConvNet, 10001, true, true, seed += 10);
    failures += check<fc::PairW8, fc::WordF16, float, __half>(kConvNet, 10001, true, false, seed += 10);
  }
  // What the pair declines, with the reason.
  std::string why;
  fc::PairPlan p;
  auto decline = [&](const char* what, ConvPoolShape a, ConvPoolShape b) {
    if (fc::make_pair_plan(a, b, Variant::kMmaBf16, 4, 227 * 1024, 4, true, &p, &why))
      ++failures, printf("FAIL  took %s\n", what);
    else
      printf("declines %s: %s\n", what, why.c_str());
  };
  decline("a second conv of 8 channels", {1, 1, 86, 86, 4, 7, 0, 2, 2}, {1, 4, 40, 40, 8, 7, 0, 4, 4});
  decline("a first conv of 5 channels", {1, 1, 86, 86, 5, 7, 0, 2, 2}, {1, 5, 40, 40, 16, 7, 0, 4, 4});
  decline("a second conv reading another map", {1, 1, 86, 86, 4, 7, 0, 2, 2}, {1, 4, 41, 40, 16, 7, 0, 4, 4});
  decline("a 3x3 second pool", {1, 1, 86, 86, 4, 7, 0, 2, 2}, {1, 4, 40, 40, 16, 7, 0, 3, 3});
  return failures;
}

// ---- timing -------------------------------------------------------------------------------------------------

constexpr int kSets = 3;  // rotated inputs

void report(const std::string& name, FILE* csv, const ConvPoolShape& s1, const ConvPoolShape& s2, size_t in_bytes,
            float ms) {
  auto taps = [](const ConvPoolShape& s) {
    return 2.0 * s.n * s.k * fc::kept_conv_rows(s) * fc::kept_conv_cols(s) * s.c * s.r * s.r;
  };
  const double flop = taps(s1) + taps(s2);
  const double bytes = static_cast<double>(in_bytes) * s1.n * s1.c * s1.h * s1.w +
                       2.0 * s2.n * s2.k * fc::pooled_h(s2) * fc::pooled_w(s2);
  printf("  %-44s batch %6d %9.4f ms %7.1f TFLOP/s %7.0f GB/s\n", name.c_str(), s1.n, ms, flop / ms / 1e9,
         bytes / ms / 1e6);
  if (csv) fprintf(csv, "%s,%d,%.5f,%.2f,%.1f\n", name.c_str(), s1.n, ms, flop / ms / 1e9, bytes / ms / 1e6);
}

struct Weights {
  std::unique_ptr<DeviceBuf> w1, b1, w2, b2;
};

Weights weights(const fc::PoolMPlan& pa, const ConvPoolShape& s1, const ConvPoolShape& s2) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  std::vector<float> w1(static_cast<size_t>(s1.k) * s1.c * s1.r * s1.r), b1(s1.k),
      w2(static_cast<size_t>(s2.k) * s2.c * s2.r * s2.r), b2(s2.k);
  for (auto* v : {&w1, &b1, &w2, &b2})
    for (auto& e : *v) e = u(rng);
  std::vector<uint4> pk1(fc::poolm_weight_bytes(pa) / 16);
  fc::poolm_pack_weights<fc::WordBf16>(pa, w1.data(), pk1.data());
  std::vector<unsigned char> pk2(fc::stacked_weight_bytes(s2, Variant::kMmaBf16, true));
  fc::stacked_pack_weights(s2, Variant::kMmaBf16, w2.data(), pk2.data(), true);
  Weights w;
  w.w1 = lab::to_device(pk1.data(), pk1.size() * 16), w.b1 = lab::to_device(b1.data(), b1.size() * 4);
  w.w2 = lab::to_device(pk2.data(), pk2.size()), w.b2 = lab::to_device(b2.data(), b2.size() * 4);
  return w;
}

template <class Cfg, class TIn>
void time_pair(const std::string& filter, FILE* csv, int n, bool bulk, cudaStream_t stream) {
  const std::string name =
      std::string(Cfg::kName) + (bulk ? " bulk " : " loads ") + lab::dt_name(lab::dt_of<TIn>()) + "->bf16";
  if (!filter.empty() && name.find(filter) == std::string::npos) return;
  ConvPoolShape s1, s2;
  shapes_of(kConvNet, n, &s1, &s2);
  fc::PairPlan p;
  std::string why;
  if (!fc::make_pair_plan(s1, s2, Variant::kMmaBf16, Cfg::kNW, 227 * 1024, sizeof(TIn), bulk, &p, &why)) {
    printf("  %-44s declined: %s\n", name.c_str(), why.c_str());
    return;
  }
  Weights w = weights(p.a, s1, s2);
  DeviceBuf dy(static_cast<size_t>(n) * s2.k * fc::pooled_h(s2) * fc::pooled_w(s2) * 2);
  auto xs = lab::rotated_inputs<TIn>(static_cast<size_t>(s1.n) * s1.c * s1.h * s1.w, kSets);
  const float ms = lab::median_ms(
      [&](int i) {
        CUDA_CHECK((fc::launch_fused_conv_pair<Cfg, fc::WordBf16, TIn, __nv_bfloat16>(
            p, static_cast<const TIn*>(xs[i % kSets]->p), w.w1->p, static_cast<const float*>(w.b1->p), w.w2->p,
            static_cast<const float*>(w.b2->p), static_cast<__nv_bfloat16*>(dy.p), stream)));
      },
      stream);
  report(name, csv, s1, s2, sizeof(TIn), ms);
}

// The engine's two kernels today: conv1 by pool-on-M into a bf16 map in memory, conv2 by shared rows from it.
template <class TIn>
void time_separate(const std::string& filter, FILE* csv, int n, cudaStream_t stream) {
  const std::string name =
      std::string("separate poolm_w8_n5_bulk + shr_w4_n4 ") + lab::dt_name(lab::dt_of<TIn>()) + "->bf16";
  if (!filter.empty() && name.find(filter) == std::string::npos) return;
  ConvPoolShape s1, s2;
  shapes_of(kConvNet, n, &s1, &s2);
  fc::PoolMPlan pa;
  fc::StackedPlan pb;
  std::string why;
  if (!fc::plan_poolm<fc::PoolMW8N5Bulk, TIn>(s1, Variant::kMmaBf16, 227 * 1024, &pa, &why) ||
      fc::plan_stacked_here<fc::StackedW4N4, __nv_bfloat16>(s2, Variant::kMmaBf16, true, &pb) != cudaSuccess) {
    printf("  %-44s declined\n", name.c_str());
    return;
  }
  Weights w = weights(pa, s1, s2);
  DeviceBuf map(static_cast<size_t>(n) * s2.c * s2.h * s2.w * 2),
      dy(static_cast<size_t>(n) * s2.k * fc::pooled_h(s2) * fc::pooled_w(s2) * 2);
  auto xs = lab::rotated_inputs<TIn>(static_cast<size_t>(s1.n) * s1.c * s1.h * s1.w, kSets);
  const float ms = lab::median_ms(
      [&](int i) {
        CUDA_CHECK((fc::launch_fused_conv_poolm<fc::PoolMW8N5Bulk, fc::WordBf16, TIn, __nv_bfloat16>(
            pa, static_cast<const TIn*>(xs[i % kSets]->p), w.w1->p, static_cast<const float*>(w.b1->p),
            static_cast<__nv_bfloat16*>(map.p), stream)));
        CUDA_CHECK((fc::launch_fused_conv_shared_rows<fc::StackedW4N4, fc::WordBf16, __nv_bfloat16, __nv_bfloat16>(
            pb, static_cast<const __nv_bfloat16*>(map.p), w.w2->p, static_cast<const float*>(w.b2->p),
            static_cast<__nv_bfloat16*>(dy.p), stream)));
      },
      stream);
  report(name, csv, s1, s2, sizeof(TIn), ms);
}

void time_all(const std::string& filter, FILE* csv) {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  if (csv) fprintf(csv, "kernel,batch,ms,tflops,gbps\n");
  printf("timings, the conv net's conv1 + conv2 (median of 50 launches, %d rotated inputs; TFLOP/s of kept taps):\n",
         kSets);
  for (int n : {10000, 1000, 128, 1}) {
    time_separate<float>(filter, csv, n, stream);
    time_pair<fc::PairW4, float>(filter, csv, n, true, stream);
    time_pair<fc::PairW8, float>(filter, csv, n, true, stream);
    time_pair<fc::PairW4Reload, float>(filter, csv, n, true, stream);
    time_pair<fc::PairW4Shfl, float>(filter, csv, n, true, stream);
    time_pair<fc::PairW8Shfl, float>(filter, csv, n, true, stream);
    time_pair<fc::PairW4N2Shfl, float>(filter, csv, n, true, stream);
    time_pair<fc::PairW4, float>(filter, csv, n, false, stream);
    time_pair<fc::PairW4, __nv_bfloat16>(filter, csv, n, false, stream);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) { return lab::run_lab(argc, argv, validate, time_all); }
