// Lab for the CPU direct convolution with fused bias, ReLU and max pool (layers/common/cpu/direct_conv.h): a
// float64 reference, validation of every variant on odd shapes, and timings of the conv net's two convolutions
// against the FMA peak measured here, at 1 thread and at all threads (threads over images, as the engine does).
//
// Build: by CMake as `cpu_conv_lab` (tests/CMakeLists.txt, the engine's -march), or by hand from the repository
// root:  g++ -O3 -std=c++17 -march=x86-64-v3 -pthread -I. tests/kernels/cpu_conv_lab.cpp -o cpu_conv_lab
// Run:   ./cpu_conv_lab                validate, then time conv1/conv2 at batch 1000
//        ./cpu_conv_lab --check-only   validate only (ctest runs this)
//        --batch N   images per timing;  --threads T   the "all threads" count (default: hardware threads)
//        --filter S  time only the runs whose "layer variant" contains S (e.g. "conv1 cols_m4_nv3")
// Exit status: non-zero when any check fails.
//
// Variants: NV = the widest register tile in vectors of 8 output columns (every tile has 4 output channels; a row
// of n vectors is split into near-equal tiles). Figures on the 2-core development machine (AMD EPYC Zen 4 under
// KVM, GCC 12, x86-64-v3 code), batch 1000, best of 3 runs of the lab, against the best FMA peak measured: 111.3
// GFLOP/s at 1 thread, 209.6 at 2 threads. GFLOP/s count the whole convolution; "exec" is the share of the peak
// counting the FMAs executed (conv2 computes only the 32x32 of 34x34 outputs its floor-mode pool reads). The
// machine was shared with other builds: single runs varied by up to 30%.
//   variant        conv1 1->4 7x7 86x86, pool 2/2          conv2 4->16 7x7 40x40, pool 4/4
//                  1 thread        2 threads               1 thread                  2 threads
//   cols_m4_nv1     57.1 (51.3%)    95.9 (45.8%)            61.4 (55.2%, exec 48.9%)  114.9 (54.8%, exec 48.6%)
//   cols_m4_nv2     80.5 (72.3%)   132.7 (63.3%)           102.3 (91.9%, exec 81.4%)  183.2 (87.4%, exec 77.4%)
//   cols_m4_nv3     74.5 (66.9%)   119.5 (57.0%)           104.8 (94.2%, exec 83.4%)  140.7 (67.1%, exec 59.5%)
// (conv2's row is 4 vectors: nv2 and nv3 both run it as two 2-vector tiles, so their gap there is noise.)
// What was learned, in order (conv1 / conv2 at 1 thread, % of peak, single noisy runs):
// - first version: scalar horizontal pool, every row padded and copied: 27% / 52%. Pooling was the bottleneck of
//   conv1 (25,600 conv outputs per image through a scalar loop with NaN tests).
// - vectorized 2/2 and 4/4 pools (pair-max passes with in-lane shuffles), balanced tiles (10 vectors as
//   3+3+2+2, not 3+3+3+1: a 1-vector tile has 4 FMA chains, too few for the FMA latency): 52% / 74%.
// - skipping the columns a floor-mode pool drops (conv2: 32 of 34): conv2 +13%.
// - reading unpadded inputs in place, pooling straight from the ring: a few %.
// - GCC 12 kept the __m256[4][NV] accumulators in memory (stores every tap row, and for NV = 3 reloads as FMA
//   memory operands); 4 one-dimensional arrays and a flat do-while tap loop keep them in registers: nv2 became
//   the fastest (clang compiled the first form well: conv1 nv3 75%).
// Where it stood before AVX-512: conv1's tiles are 84% of its time (perf), the rest is pooling; each tap is 2 input
// loads (half of them crossing a cache line) and 4 weight broadcasts per 8 FMAs, close to the load ports' limit.
//
// AVX-512 variants (layers/common/cpu/direct_conv_avx512.h, run only where the processor has AVX-512; IE_CPU_ISA=avx2
// leaves them out): avx512_nvN = tiles of at most N vectors of 16 columns, 4 channels (8 when a tile is at most 3
// vectors wide). The engine runs avx512_nv5. Every variant must give the same bits as the first (cols_m4_nv1): the
// validation checks it. % of peak for them is against the 16-wide FMA peak.
// - GPU machine's Xeon (16 cores, AVX-512 with two 512-bit FMA ports: 16-wide peak 162.7 GFLOP/s at 1 thread
//   against 93.3 8-wide), GCC 13, batch 2000, one run:
//     conv1 16 threads: cols_m4_nv2 8.01 ms, avx512_nv5 5.17 ms (1.55x); 1 thread 80.1 -> 49.1 ms
//     conv2 16 threads: cols_m4_nv2 19.7 ms, avx512_nv5 10.5 ms (1.88x); 1 thread 178 -> 87.1 ms (2.05x)
// - the 2-core development machine (Zen 4: 512-bit FMAs as two 256-bit halves, so the same peak as AVX2), GCC 12,
//   batch 500, 2 threads: conv1 7.35 -> 7.31 ms (nv2 7.01), conv2 16.5 -> 15.2 ms: the gain there is fewer
//   instructions and loads per FMA (embedded broadcasts; 8 channels x 2 vectors for conv2), about 4-8%.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "layers/common/cpu/direct_conv.h"
#include "layers/common/cpu/direct_conv_avx512.h"

using ie::cpu::DirectConvShape;

namespace {

using RowsFn = void (*)(const DirectConvShape&, const float*, const float*, const float*, float*, float*, int64_t,
                        int64_t);

struct Variant {
  const char* name;
  RowsFn fn;
  bool avx512 = false;  // runs only where the processor has AVX-512 F/BW/VL/DQ
};

const Variant kAllVariants[] = {
    {"cols_m4_nv1", ie::cpu::direct_conv_rows<1>},
    {"cols_m4_nv2", ie::cpu::direct_conv_rows<2>},
    {"cols_m4_nv3", ie::cpu::direct_conv_rows<3>},
#if IE_DIRECT_CONV_AVX512
    {"avx512_nv2", ie::cpu::direct_conv_rows_avx512<2>, true},
    {"avx512_nv3", ie::cpu::direct_conv_rows_avx512<3>, true},
    {"avx512_nv4", ie::cpu::direct_conv_rows_avx512<4>, true},
    {"avx512_nv5", ie::cpu::direct_conv_rows_avx512<5>, true},
    {"avx512_nv6", ie::cpu::direct_conv_rows_avx512<6>, true},
#endif
};

bool has_avx512() {
#if IE_DIRECT_CONV_AVX512
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

// The variants this processor runs (IE_CPU_ISA=avx2 leaves out the AVX-512 ones, as in the engine).
const std::vector<Variant>& variants() {
  static const std::vector<Variant> list = [] {
    const char* isa = std::getenv("IE_CPU_ISA");
    const bool avx512 = has_avx512() && !(isa && std::string(isa) == "avx2");
    std::vector<Variant> v;
    for (const Variant& x : kAllVariants)
      if (!x.avx512 || avx512) v.push_back(x);
    return v;
  }();
  return list;
}

// Pool output size by ONNX's rule (floor or ceil; with ceil the last window must start inside input or left pad).
int64_t pool_out(int64_t in, int64_t k, int64_t stride, int64_t pad_begin, int64_t pad_end, bool ceil_mode) {
  const int64_t span = in + pad_begin + pad_end - k;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

// float64 reference in the unfused order: conv, + bias, ReLU, then max pool (NaN-free inputs here).
std::vector<double> reference(const DirectConvShape& s, const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& b) {
  const int64_t ch = s.conv_h(), cw = s.conv_w();
  std::vector<double> conv(static_cast<size_t>(s.out_channels * ch * cw));
  for (int64_t m = 0; m < s.out_channels; ++m)
    for (int64_t oy = 0; oy < ch; ++oy)
      for (int64_t ox = 0; ox < cw; ++ox) {
        double acc = b.empty() ? 0.0 : b[m];
        for (int64_t c = 0; c < s.in_channels; ++c)
          for (int64_t ky = 0; ky < s.kernel_h; ++ky)
            for (int64_t kx = 0; kx < s.kernel_w; ++kx) {
              const int64_t iy = oy + ky - s.pad_top, ix = ox + kx - s.pad_left;
              if (iy < 0 || iy >= s.in_h || ix < 0 || ix >= s.in_w) continue;
              acc += double(x[(c * s.in_h + iy) * s.in_w + ix]) *
                     w[((m * s.in_channels + c) * s.kernel_h + ky) * s.kernel_w + kx];
            }
        if (s.relu && acc < 0) acc = 0;
        conv[(m * ch + oy) * cw + ox] = acc;
      }
  if (!s.pool) return conv;
  std::vector<double> out(static_cast<size_t>(s.out_channels * s.pool_out_h * s.pool_out_w));
  for (int64_t m = 0; m < s.out_channels; ++m)
    for (int64_t py = 0; py < s.pool_out_h; ++py)
      for (int64_t px = 0; px < s.pool_out_w; ++px) {
        double best = std::numeric_limits<float>::lowest();
        for (int64_t i = 0; i < s.pool_h; ++i)
          for (int64_t j = 0; j < s.pool_w; ++j) {
            const int64_t y = py * s.pool_stride_h - s.pool_pad_top + i,
                          xx = px * s.pool_stride_w - s.pool_pad_left + j;
            if (y >= 0 && y < ch && xx >= 0 && xx < cw) best = std::max(best, conv[(m * ch + y) * cw + xx]);
          }
        out[(m * s.pool_out_h + py) * s.pool_out_w + px] = best;
      }
  return out;
}

std::vector<float> random_values(size_t n, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& e : v) e = d(rng);
  return v;
}

// Runs `fn` on a batch over `threads` threads, each a contiguous run of images with its own scratch.
void run_batch(const Variant& v, const DirectConvShape& s, const std::vector<float>& packed, const float* bias,
               const float* x, float* y, int64_t batch, int threads) {
  const ie::cpu::DirectConvLayout l = ie::cpu::direct_conv_layout(s);
  const int64_t in_image = s.in_channels * s.in_h * s.in_w, out_image = s.out_channels * s.out_h() * s.out_w();
  auto work = [&](int64_t b, int64_t e) {
    std::vector<float> scratch(static_cast<size_t>(l.scratch_floats));
    for (int64_t n = b; n < e; ++n)
      v.fn(s, packed.data(), bias, x + n * in_image, y + n * out_image, scratch.data(), 0, s.out_h());
  };
  if (threads <= 1) return work(0, batch);
  std::vector<std::thread> pool;
  const int64_t per = (batch + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const int64_t b = std::min(batch, t * per), e = std::min(batch, b + per);
    pool.emplace_back(work, b, e);
  }
  for (auto& t : pool) t.join();
}

// Checks every variant on one shape, whole images and split into row bands; returns the number of failures.
int check_shape(const DirectConvShape& s, std::mt19937& rng, bool with_bias) {
  if (!ie::cpu::direct_conv_fits(s)) {
    std::printf("shape not served (test bug)\n");
    return 1;
  }
  const int64_t batch = 2;
  const auto x = random_values(static_cast<size_t>(batch * s.in_channels * s.in_h * s.in_w), rng);
  const auto w = random_values(static_cast<size_t>(s.out_channels * s.in_channels * s.kernel_h * s.kernel_w), rng);
  const auto b = with_bias ? random_values(static_cast<size_t>(s.out_channels), rng) : std::vector<float>{};
  const auto packed = ie::cpu::direct_conv_pack(s, w.data());
  const int64_t in_image = s.in_channels * s.in_h * s.in_w, out_image = s.out_channels * s.out_h() * s.out_w();
  std::vector<double> want;
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<float> xi(x.begin() + n * in_image, x.begin() + (n + 1) * in_image);
    auto r = reference(s, xi, w, b);
    want.insert(want.end(), r.begin(), r.end());
  }
  // fp32 accumulation over taps = C*KH*KW <= 784 products of values in [-1, 1): |got - want| <= (1e-5 + 1e-6 *
  // taps) * max(1, |want|), a bound the sum's rounding (taps * 2^-24 per unit of magnitude) stays well under.
  const double taps = double(s.in_channels * s.kernel_h * s.kernel_w);
  const double tol = 1e-5 + 1e-6 * taps;
  int failures = 0;
  const ie::cpu::DirectConvLayout l = ie::cpu::direct_conv_layout(s);
  std::vector<float> first;  // the first variant's output: every other one must match it bit for bit
  for (const Variant& v : variants())
    for (int bands : {1, 3}) {
      std::vector<float> y(static_cast<size_t>(batch * out_image), std::nanf(""));
      std::vector<float> scratch(static_cast<size_t>(l.scratch_floats) + 3);
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t oh = s.out_h(), per = (oh + bands - 1) / bands;
        for (int64_t r = 0; r < oh; r += per)
          v.fn(s, packed.data(), b.empty() ? nullptr : b.data(), x.data() + n * in_image, y.data() + n * out_image,
               scratch.data() + 1 + n, r, std::min(oh, r + per));  // odd offsets: unaligned scratch
      }
      double worst = 0;
      int64_t where = -1;
      for (size_t i = 0; i < y.size(); ++i) {
        const double err = std::fabs(double(y[i]) - want[i]);
        if (!(err <= tol * std::max(1.0, std::fabs(want[i])))) {
          worst = err;
          where = static_cast<int64_t>(i);
          break;
        }
      }
      if (where < 0 && first.empty()) first = y;
      // (A plain C++ baseline, built without FMA, rounds each product: then only the tolerance applies.)
      if (where < 0 && IE_DIRECT_CONV_AVX2 && std::memcmp(first.data(), y.data(), y.size() * sizeof(float)) != 0) {
        ++failures;
        std::printf("FAIL %s bands=%d C=%lld M=%lld %lldx%lld: not bit-identical to %s\n", v.name, bands,
                    (long long)s.in_channels, (long long)s.out_channels, (long long)s.in_h, (long long)s.in_w,
                    variants()[0].name);
      }
      if (where >= 0) {
        ++failures;
        std::printf(
            "FAIL %s bands=%d C=%lld M=%lld %lldx%lld k=%lldx%lld pads=%lld,%lld,%lld,%lld pool=%d "
            "%lldx%lld/%lldx%lld pad %lld,%lld relu=%d: element %lld got %g want %g (err %g)\n",
            v.name, bands, (long long)s.in_channels, (long long)s.out_channels, (long long)s.in_h, (long long)s.in_w,
            (long long)s.kernel_h, (long long)s.kernel_w, (long long)s.pad_top, (long long)s.pad_left,
            (long long)s.pad_bottom, (long long)s.pad_right, int(s.pool), (long long)s.pool_h, (long long)s.pool_w,
            (long long)s.pool_stride_h, (long long)s.pool_stride_w, (long long)s.pool_pad_top,
            (long long)s.pool_pad_left, int(s.relu), (long long)where, double(y[where]), want[where], worst);
      }
    }
  return failures;
}

DirectConvShape make_shape(int64_t c, int64_t m, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t pad, bool relu) {
  DirectConvShape s;
  s.in_channels = c, s.out_channels = m, s.in_h = h, s.in_w = w, s.kernel_h = kh, s.kernel_w = kw;
  s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = pad;
  s.relu = relu;
  return s;
}

void add_pool(DirectConvShape& s, int64_t k, int64_t stride, int64_t pad, bool ceil_mode) {
  s.pool = true;
  s.pool_h = s.pool_w = k, s.pool_stride_h = s.pool_stride_w = stride, s.pool_pad_top = s.pool_pad_left = pad;
  s.pool_out_h = pool_out(s.conv_h(), k, stride, pad, pad, ceil_mode);
  s.pool_out_w = pool_out(s.conv_w(), k, stride, pad, pad, ceil_mode);
}

int validate() {
  std::mt19937 rng(7);
  int failures = 0, cases = 0;
  auto run = [&](DirectConvShape s, bool bias) {
    failures += check_shape(s, rng, bias);
    ++cases;
  };
  // The conv net's two layers.
  {
    auto s = make_shape(1, 4, 86, 86, 7, 7, 0, true);
    add_pool(s, 2, 2, 0, false);
    run(s, true);
    s = make_shape(4, 16, 40, 40, 7, 7, 0, true);
    add_pool(s, 4, 4, 0, false);
    run(s, true);
  }
  // Odd shapes: channels 1..16 in, up to 64 out, kernels 3..7, padding 0 or symmetric, pools or none.
  std::uniform_int_distribution<int> pick(0, 1 << 30);
  const int cins[] = {1, 2, 3, 5, 16}, couts[] = {1, 3, 4, 7, 16, 33, 64};
  for (int i = 0; i < 60; ++i) {
    const int64_t c = cins[pick(rng) % 5], m = couts[pick(rng) % 7], k = 3 + pick(rng) % 5;
    const int64_t kh = (i % 7 == 3) ? 1 + pick(rng) % 7 : k;  // a few non-square kernels
    const int64_t pad = (i % 3 == 0) ? 0 : pick(rng) % k;
    const int64_t h = k + 1 + pick(rng) % 30, w = k + 1 + pick(rng) % 40;
    auto s = make_shape(c, m, h, w, kh, k, pad, pick(rng) % 4 != 0);
    if (s.conv_h() < 1 || s.conv_w() < 1) continue;
    switch (i % 5) {
      case 0:
        break;  // no pool
      case 1:
        add_pool(s, 2, 2, 0, false);
        break;
      case 2:
        add_pool(s, 3, 2, 1, true);
        break;  // overlapping, padded, ceil mode
      case 3:
        add_pool(s, 4, 4, 0, false);
        break;
      default:
        add_pool(s, 2, 3, 1, true);
        break;  // stride beyond the window: skipped rows
    }
    if (s.pool && (s.pool_out_h < 1 || s.pool_out_w < 1)) continue;
    run(s, i % 4 != 1);
  }
  // A grid for the 16-column vectors: conv widths that are not multiples of 16 (tiles ending in a half vector or
  // 1..15 spare columns), 1, 3 and 16 input channels, 4, 16 and 20 output channels (1, 2 and 2+1 blocks of 8),
  // pools 2/2, 3/2 (padded, ceil mode) and none.
  const int64_t widths[] = {9, 23, 40, 57, 86};
  int grid = 0;
  for (int64_t c : {1, 3, 16})
    for (int64_t m : {4, 16, 20})
      for (int pool = 0; pool < 3; ++pool, ++grid) {
        const int64_t k = 3 + grid % 5, w = widths[grid % 5], pad = grid % 2 ? k / 2 : 0;
        auto s = make_shape(c, m, 5 + grid % 9, w, k, k, pad, grid % 3 != 0);
        if (s.conv_h() < 1 || s.conv_w() < 1) continue;
        if (pool == 1) add_pool(s, 2, 2, 0, false);
        if (pool == 2) add_pool(s, 3, 2, 1, true);
        if (s.pool && (s.pool_out_h < 1 || s.pool_out_w < 1)) continue;
        run(s, grid % 4 != 1);
      }
  std::printf("validation: %d shapes x %zu variants x 2 band splits, %d failures\n", cases, variants().size(),
              failures);
  return failures;
}

double run_peak(void (*body)(double*), int threads);

// Peak fp32 FMA throughput of `threads` threads: 12 independent accumulator chains of 8-wide FMAs per thread.
double measure_peak_gflops(int threads) {
  auto body = [](double* result) {
#if IE_DIRECT_CONV_AVX2
    __m256 acc[12];
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(0.001f * i);
    const __m256 a = _mm256_set1_ps(0.9999f), b = _mm256_set1_ps(1e-7f);
    const int64_t iters = 20'000'000;
    for (int64_t it = 0; it < iters; ++it)
      for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    float sink[8];
    __m256 sum = acc[0];
    for (int i = 1; i < 12; ++i) sum = _mm256_add_ps(sum, acc[i]);
    _mm256_storeu_ps(sink, sum);
    *result = double(iters) * 12 * 8 * 2 + (sink[0] == 12345.0f ? 1 : 0);
#else
    *result = 0;
#endif
  };
  return run_peak(body, threads);
}

#if IE_DIRECT_CONV_AVX512
// The same with 16-wide FMAs (twice the 8-wide peak on cores with two 512-bit FMA units, the same on Zen 4).
IE_TARGET_AVX512 void peak_body_avx512(double* result) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(0.001f * i);
  const __m512 a = _mm512_set1_ps(0.9999f), b = _mm512_set1_ps(1e-7f);
  const int64_t iters = 10'000'000;
  for (int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  __m512 sum = acc[0];
  for (int i = 1; i < 12; ++i) sum = _mm512_add_ps(sum, acc[i]);
  float sink[16];
  _mm512_storeu_ps(sink, sum);
  *result = double(iters) * 12 * 16 * 2 + (sink[0] == 12345.0f ? 1 : 0);
}
#endif

double measure_peak_gflops_avx512(int threads) {
#if IE_DIRECT_CONV_AVX512
  return run_peak(peak_body_avx512, threads);
#else
  return 0;
#endif
}

double run_peak(void (*body)(double*), int threads) {
  std::vector<double> flops(static_cast<size_t>(threads));
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(body, &flops[t]);
  for (auto& t : pool) t.join();
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double total = 0;
  for (double f : flops) total += f;
  return total / sec * 1e-9;
}

void time_layers(int64_t batch, int all_threads, const std::string& filter) {
  std::mt19937 rng(11);
  struct Layer {
    const char* name;
    DirectConvShape s;
  };
  std::vector<Layer> layers;
  {
    auto s = make_shape(1, 4, 86, 86, 7, 7, 0, true);
    add_pool(s, 2, 2, 0, false);
    layers.push_back({"conv1 1->4 7x7 86x86 pool2", s});
    s = make_shape(4, 16, 40, 40, 7, 7, 0, true);
    add_pool(s, 4, 4, 0, false);
    layers.push_back({"conv2 4->16 7x7 40x40 pool4", s});
  }
  // Best of 3: on a shared machine a single measurement can catch another process on the cores.
  double peak1 = 0, peak_all = 0, peak1_512 = 0, peak_all_512 = 0;
  for (int rep = 0; rep < 3; ++rep)
    peak1 = std::max(peak1, measure_peak_gflops(1)), peak_all = std::max(peak_all, measure_peak_gflops(all_threads));
  std::printf("FMA peak: %.1f GFLOP/s at 1 thread, %.1f at %d threads\n", peak1, peak_all, all_threads);
  if (has_avx512()) {
    for (int rep = 0; rep < 3; ++rep)
      peak1_512 = std::max(peak1_512, measure_peak_gflops_avx512(1)),
      peak_all_512 = std::max(peak_all_512, measure_peak_gflops_avx512(all_threads));
    std::printf("AVX-512 FMA peak: %.1f GFLOP/s at 1 thread, %.1f at %d threads (the avx512 variants' %% of peak)\n",
                peak1_512, peak_all_512, all_threads);
  }
  for (const Layer& layer : layers) {
    const DirectConvShape& s = layer.s;
    const auto x = random_values(static_cast<size_t>(batch * s.in_channels * s.in_h * s.in_w), rng, 0.0f, 1.0f);
    const auto w = random_values(static_cast<size_t>(s.out_channels * s.in_channels * s.kernel_h * s.kernel_w), rng);
    const auto b = random_values(static_cast<size_t>(s.out_channels), rng);
    const auto packed = ie::cpu::direct_conv_pack(s, w.data());
    std::vector<float> y(static_cast<size_t>(batch * s.out_channels * s.out_h() * s.out_w()));
    // Nominal flops are the whole convolution's; the kernel executes the used rows and columns only (a floor-mode
    // pool drops some: conv2 computes 32x32 of 34x34) in whole vectors and blocks of 4 channels.
    const double taps = double(s.in_channels * s.kernel_h * s.kernel_w);
    const double flops = 2.0 * double(batch) * double(s.out_channels) * double(s.conv_h() * s.conv_w()) * taps;
    const ie::cpu::DirectConvLayout l = ie::cpu::direct_conv_layout(s);
    const int64_t used_rows =
        s.pool ? std::min(s.conv_h(), (s.pool_out_h - 1) * s.pool_stride_h + s.pool_h) : s.conv_h();
    const double executed = 2.0 * double(batch) * double(l.m4) * double(used_rows * l.conv_w8) * taps;
    for (const Variant& v : variants())
      for (int threads : {1, all_threads}) {
        if (!filter.empty() && (std::string(layer.name) + " " + v.name).find(filter) == std::string::npos) continue;
        double best = 1e30;
        for (int rep = 0; rep < 5; ++rep) {
          const auto t0 = std::chrono::steady_clock::now();
          run_batch(v, s, packed, b.data(), x.data(), y.data(), batch, threads);
          best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        const double gflops = flops / best * 1e-9;
        const double peak = v.avx512 ? (threads == 1 ? peak1_512 : peak_all_512) : (threads == 1 ? peak1 : peak_all);
        std::printf("%-28s %-12s threads %2d  %8.3f ms  %7.1f GFLOP/s  %5.1f%% of peak (executed FMAs: %5.1f%%)\n",
                    layer.name, v.name, threads, best * 1e3, gflops, 100.0 * gflops / peak,
                    100.0 * executed / best * 1e-9 / peak);
      }
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool check_only = false;
  int64_t batch = 1000;
  int threads = std::max(1u, std::thread::hardware_concurrency());
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check-only")
      check_only = true;
    else if (a == "--batch" && i + 1 < argc)
      batch = std::atoll(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (a == "--filter" && i + 1 < argc)
      filter = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--check-only] [--batch N] [--threads T] [--filter S]\n", argv[0]);
      return 2;
    }
  }
  const int failures = validate();
  if (failures || check_only) return failures ? 1 : 0;
  time_layers(batch, threads, filter);
  return 0;
}
