// Lab for a classifier head on the sample-resident kernel (layers/sample_resident/sample_resident.cuh): the chain
// flatten -> Linear + ReLU -> Linear -> Softmax -> float output (tests/kernels/head_chain.h; the conv net's at
// K 1024, H 32, C 10), built by the engine's builder, checked against a float64 reference on odd shapes and batches
// in bf16 and fp16 (a NaN stays in its sample, nothing is written past the batch, the same bits twice), then timed
// per tile size against the copy floor, with the time of each instruction kind (left out in turn).
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
//     tests/kernels/head_chain_lab.cu layers/sample_resident/sample_resident_builder.cpp \
//     layers/sample_resident/head_builder.cpp -o head_chain_lab
//   ./head_chain_lab [--check-only] [--no-validate] [--filter S] [--csv PATH]
//   HEAD_LAB_MAX_BATCH=N ./head_chain_lab --check-only     the checks of at most N samples (sanitizer runs)
// lab-sources: layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/head_builder.cpp
//
// Floor (H200, conv net head, bf16 input): 2 KiB in and 40 B out per sample, 20.9 MB at batch 10000 = 5 us at
// ~4.2 TB/s; 66 KFLOP per sample (0.66 GFLOP at 10000). The per-step kernels it replaces (fc3 on the Tensor Cores,
// fc4, softmax, the output's cast): 0.0217 ms for the whole conv net at batch 1, about 41 us of 620 at 10000.
//
// Variants and figures (H200 unless said, median of 50 launches, 3 rotated inputs; a launch's event time, so a few
// microseconds of launch at the small batches):
//   I. the interpreting kernel (sample_resident.cuh) on the chain, tile 16 / 32 / 64 samples:
//        batch 1: 0.0194 / 0.0275 / 0.0474 ms; 1000: 0.0216 / 0.0322 / 0.0569; 10000: 0.0791 / 0.109 / 0.139
//      Slower than the four per-step kernels at every batch, in the engine (whole net, bf16: 0.0336 against 0.0217
//      ms at 1, 0.671 against 0.620 at 10000). Instruction kinds left out (tile 16, batch 1 / 10000): all 0.0194 /
//      0.0791, without the products 0.0083 / 0.0365, without the softmax 0.0162 / 0.0709, without the load
//      0.0180 / 0.0584. ncu (H100, 10000): 4 warps per CTA, 2 CTAs per SM, 0.11 eligible warps per scheduler,
//      17 cycles per issued instruction; the stalls sit on the MMAs waiting for their ldmatrix (21%) and on the
//      input's global loads (23%): a latency chain per 16-sample tile, barrier to barrier.
//   H1. the head kernel (head_kernel.cuh), 8 samples per CTA, a warp per hidden unit, W2^T read from global memory
//        batch 1: 0.0100; 8: 0.0142; 1000: 0.0149; 10000: 0.0817. 32 samples per CTA: 0.0241 / 0.0277 / 0.0414 /
//        0.1215 (the accumulators of 32 samples per lane: slower everywhere, dropped). In the engine no faster
//        than the per-step kernels at batch 1 (0.0212 against 0.0220 ms).
//   H2. two hidden units per warp, the first 16-byte chunk of each of their rows per lane requested before the
//       input's copy, W2^T staged in shared memory: batch 1 0.0090, 8 0.0148, 1000 0.0156, 2048 0.0211, 4096
//       0.0360, 10000 0.0824 (the interpreter at 4096: 0.0272).
//   H3. the first four chunks requested (kPre = 4), kept: 1 0.0090, 8 0.0141, 128 0.0145, 1000 0.0149; past the
//       engine's range slower (92 registers: 2048 0.0252, 10000 0.111). The products run on the CUDA cores: at
//       10000 about 660 M instructions for 0.33 G multiply-adds, where the per-step path has fc3 on the Tensor
//       Cores; the engine takes the head kernel up to 1024 samples (sample_resident_cuda.cu: kHeadMaxBatch).
//   H4. tried: the head launched as a programmatic dependent of conv2 (conv kernels executing
//       griddepcontrol.launch_dependents at their start, the head's weight loads before griddepcontrol.wait), at
//       batches up to 264: the whole net in bf16 0.0241 ms at batch 1 against 0.0220 without, 0.0300 against 0.0291
//       at 8. Dropped.
//   H5. where batch 1 goes (H200, tools/results/h200/linear_resident/call_h/; the whole conv net's graph replay at
//       batch 1 is its three kernels back to back: conv1 5.1 us, conv2 7.4, this kernel 8.6, call_g/): 8.51 us of
//       device time, 11,795 warp instructions, 13 cycles per issued instruction; per line, the xor-shuffle
//       reductions of all R = 8 rows' accumulators (7 empty at batch 1) 22% of the executed instructions, the bf16
//       unpacking 13%, and the b1 loads after the reduction 30% of the (few) stall samples. Next: reduce only the
//       CTA's rows (rows is uniform), load the biases before the products; not measured yet.
//   H6. H5's change (v1), then the second product and the softmax as a warp per sample, lanes across the classes,
//       two partial sums, no barrier between them (new, kept); three trees in one call, three alternating rounds
//       (tools/results/h200/head_batch1/call_a/), HEAD / v1 / new, ms: batch 1 0.0089 / 0.0084 / 0.0077-0.0082;
//       8 0.0142 / 0.0141 / 0.0143; 1000 0.0150 / 0.0149 / 0.0151; past the engine's range a little slower (10000
//       0.1110 / 0.1133 / 0.1145). In the conv net's batch-1 graph replays: 7.5-7.6 us (8.6 before).
//   M1. the MMA head (head_mma.cuh): 16 x MT samples per CTA, 8 warps splitting K, the first product by m16n8k16
//       MMAs with both operands read from global memory in the fragments' order (K permuted per 32-element chunk,
//       16-byte loads), G chunks' loads in flight, the warps' sums added in shared memory, then the CUDA-core
//       head's second product and softmax (tools/results/h200/head_mma/call_a/; every check passes, sanitizers
//       clean at up to 1000 samples), ms:
//         batch        1       8      16     128    1000    2048    4096   10000   50000
//         head8   0.0077  0.0143  0.0144  0.0144  0.0150  0.0256  0.0466  0.1139  0.5290
//         mma16 g1 0.0088  0.0099  0.0118  0.0119  0.0122  0.0123  0.0142  0.0255  0.0960
//         mma16 g2 0.0069  0.0070  0.0094  0.0090  0.0096  0.0095  0.0123  0.0246  0.0968   (engine's)
//         mma16 g4 0.0062  0.0065  0.0083  0.0084  0.0085  0.0091  0.0152  0.0342  0.1459
//         mma32 g1 0.0091  0.0101  0.0120  0.0157  0.0158  0.0159  0.0162  0.0278  0.0984
//         mma32 g2 0.0067  0.0073  0.0091  0.0133  0.0134  0.0135  0.0138  0.0325  0.0941
//         interp  0.0194  0.0204  0.0216  0.0218  0.0218  0.0219  0.0272  0.0790  0.3060
//       Registers (ptxas, bf16, NT = 4): g1 48, g2 78, g4 162 (one CTA per SM), mma32 g2 118. At 10000 the
//       per-step path's four kernels take about 0.040 ms (fc3 0.024); the MMA head reads 0.85 TB/s there, a CTA's
//       dependent steps (loads, MMAs, barrier, sums, barrier, softmax) over 1.6 waves.
//   M2. the first product's bias staged in shared memory in the prologue (its global load had followed the barrier),
//       the second product by half-warps for up to 16 classes (two samples a warp at once) with 16-byte loads of
//       the hidden row (both heads: classify_rows); A/B in one call against M1's binary, two rounds (call_b), ms:
//         batch            1       16      128     1000     4096    10000    50000
//         mma16 g2 M1  0.0068  0.0093  0.0095  0.0097  0.0122  0.0246  0.0967
//         mma16 g2 M2  0.0071  0.0071  0.0072  0.0079  0.0092  0.0198  0.0656   (engine's)
//         mma16 g4 M2  0.0060  0.0065  0.0069  0.0072  0.0115  0.0245  0.1007
//         mma32 g2 M2  0.0066  0.0070  0.0092  0.0094  0.0097  0.0220  0.0620
// Engine, whole conv net, bf16, compute p50 (tools/results/h200/head_chain/): 1: 0.0220 ms (per step 0.0219),
// 16: 0.0291 (0.0364), 128: 0.0335 (0.0425), 1000: 0.0963 (0.1004). After H6 (head_batch1/call_a/): 1: 0.0200,
// 16: 0.0288, 128: 0.0339, 1000: 0.0971; fp16 1: 0.0194.
#include <cstdlib>
#include <memory>
#include <random>
#include <type_traits>

#include "layers/sample_resident/head_builder.h"
#include "layers/sample_resident/head_kernel.cuh"
#include "layers/sample_resident/head_mma.cuh"
#include "layers/sample_resident/sample_resident.cuh"
#include "layers/sample_resident/sample_resident_builder.h"
#include "tests/kernels/head_chain.h"
#include "tests/kernels/lab_util.cuh"

using namespace ie::sr;

namespace {

struct Shape {
  int k, hidden, classes;
};

lab::DT dt_of(Elem e) { return e == Elem::BF16 ? lab::DT::BF16 : lab::DT::F16; }

uint16_t bits_of(float f, Elem e) {
  const std::vector<unsigned char> b = lab::bytes_of(dt_of(e), {f});
  return static_cast<uint16_t>(b[0] | (b[1] << 8));
}

// The chain's program for the interpreting kernel, uploaded, and its launch.
struct Interp {
  Built built;
  lab::DeviceBuf prog{sizeof(Program)};
  std::unique_ptr<lab::DeviceBuf> w, f;
  int grid_cap = 1;

  Budget budget;
  template <class T>
  bool setup(const ChainSpec& spec, std::string* why) {
    if (!build_program(spec, budget, &built, why)) return false;
    w = std::make_unique<lab::DeviceBuf>(built.weights.size() * 2);
    f = std::make_unique<lab::DeviceBuf>(built.floats.size() * 4);
    CUDA_CHECK(cudaMemcpy(prog.p, &built.program, sizeof(Program), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(w->p, built.weights.data(), built.weights.size() * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(f->p, built.floats.data(), built.floats.size() * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaFuncSetAttribute(sample_resident_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    built.program.smem_bytes));
    int per_sm = 0, sms = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sample_resident_kernel<T>,
                                                             built.program.warps * 32, built.program.smem_bytes));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    grid_cap = std::max(1, per_sm) * sms;
    return true;
  }
  template <class T>
  void launch(const void* x, void* y, int64_t batch, cudaStream_t s = 0) const {
    Args a;
    a.program = static_cast<const Program*>(prog.p), a.weights = w->p, a.floats = static_cast<const float*>(f->p);
    a.batch = batch, a.io[0] = x, a.io[1] = y;
    const int64_t tiles = (batch + built.program.tile - 1) / built.program.tile;
    sample_resident_kernel<T><<<static_cast<int>(std::min<int64_t>(tiles, grid_cap)), built.program.warps * 32,
                                built.program.smem_bytes, s>>>(a);
  }
  std::string name() const { return "interp tile" + std::to_string(budget.tile); }
};

std::vector<float> weight_values(const std::vector<uint16_t>& w, Elem e) {
  std::vector<unsigned char> b(w.size() * 2);
  std::memcpy(b.data(), w.data(), b.size());
  return lab::floats_of(dt_of(e), b);
}

// A head's layout on the device, shared by the two head kernels' runners.
struct HeadOnDevice {
  HeadBuilt built;
  std::unique_ptr<lab::DeviceBuf> w, f;
  void upload() {
    w = std::make_unique<lab::DeviceBuf>(built.weights.size() * 2);
    f = std::make_unique<lab::DeviceBuf>(built.floats.size() * 4);
    CUDA_CHECK(cudaMemcpy(w->p, built.weights.data(), built.weights.size() * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(f->p, built.floats.data(), built.floats.size() * 4, cudaMemcpyHostToDevice));
  }
  head::Args args(const void* x, void* y, int64_t batch) const {
    head::Args a;
    a.m = built.model, a.weights = w->p, a.floats = static_cast<const float*>(f->p);
    a.x = x, a.y = y, a.batch = batch;
    return a;
  }
};

// The same chain on the head kernel (head_kernel.cuh), R samples per CTA.
template <int R>
struct Direct : HeadOnDevice {
  template <class T>
  bool setup(const ChainSpec& spec, std::string* why) {
    int smem = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    if (!build_head(spec, R, &built, why)) return false;
    if (built.model.smem_bytes > smem) {
      *why = "the tile's input rows exceed shared memory";
      return false;
    }
    upload();
    CUDA_CHECK(cudaFuncSetAttribute(head::head_kernel<T, R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    built.model.smem_bytes));
    return true;
  }
  template <class T>
  void launch(const void* x, void* y, int64_t batch, cudaStream_t s = 0) const {
    head::head_kernel<T, R>
        <<<static_cast<int>((batch + R - 1) / R), head::kThreads, built.model.smem_bytes, s>>>(args(x, y, batch));
  }
  std::string name() const { return "head" + std::to_string(R); }
};

// The same chain on the MMA head (head_mma.cuh), 16 x MT samples per CTA, G chunks' loads in flight.
template <int MT, int G>
struct Mma : HeadOnDevice {
  int smem = 0;
  template <class T>
  bool setup(const ChainSpec& spec, std::string* why) {
    int optin = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    if (!build_head(spec, 16 * MT, &built, why)) return false;
    auto fn = head::head_mma_kernel_for<T, MT, G>(built.model.hidden);
    smem = head::head_mma_smem_bytes(built.model, MT);
    if (!fn || smem > optin) {
      *why = "hidden or shared memory past the MMA head's";
      return false;
    }
    upload();
    CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return true;
  }
  template <class T>
  void launch(const void* x, void* y, int64_t batch, cudaStream_t s = 0) const {
    const unsigned grid = static_cast<unsigned>((batch + 16 * MT - 1) / (16 * MT));
    head::head_mma_kernel_for<T, MT, G>(built.model.hidden)<<<grid, head::kMmaWarps * 32, smem, s>>>(args(x, y, batch));
  }
  std::string name() const { return "mma" + std::to_string(16 * MT) + "_g" + std::to_string(G); }
};

// Probabilities in float64 from the inputs and weights as the kernel reads them; the hidden layer rounded to the
// compute type as the kernel stores it in shared memory.
std::vector<double> reference(const ChainSpec& c, const std::vector<float>& x, int64_t batch) {
  const ChainOp &fc3 = c.ops[0], &fc4 = c.ops[1];
  const std::vector<float> w3 = weight_values(fc3.w, c.compute), w4 = weight_values(fc4.w, c.compute);
  std::vector<double> out(batch * fc4.n);
  std::vector<float> h(fc3.n);
  std::vector<double> l(fc4.n);
  for (int64_t b = 0; b < batch; ++b) {
    for (int n = 0; n < fc3.n; ++n) {
      double s = fc3.bias[n];
      for (int k = 0; k < fc3.k; ++k) s += static_cast<double>(x[b * fc3.k + k]) * w3[n * fc3.k + k];
      h[n] = static_cast<float>(s < 0 ? 0 : s);
    }
    h = lab::round_to(dt_of(c.compute), h);
    double mx = -INFINITY, sum = 0;
    for (int n = 0; n < fc4.n; ++n) {
      double s = fc4.bias[n];
      for (int k = 0; k < fc4.k; ++k) s += static_cast<double>(h[k]) * w4[n * fc4.k + k];
      l[n] = s;
      mx = std::max(mx, s);
    }
    for (int n = 0; n < fc4.n; ++n) sum += l[n] = std::exp(l[n] - mx);
    for (int n = 0; n < fc4.n; ++n) out[b * fc4.n + n] = l[n] / sum;
  }
  return out;
}

template <class T, class Runner>
bool check(const Shape& s, Elem e, int64_t batch, std::mt19937& rng) {
  const ChainSpec spec = head_chain(s.k, s.hidden, s.classes, e, rng, bits_of);
  Runner head;
  std::string why;
  if (!head.template setup<T>(spec, &why)) {
    printf("  %d -> %d -> %d: declined: %s\n", s.k, s.hidden, s.classes, why.c_str());
    return false;
  }
  std::uniform_real_distribution<float> d(0.f, 2.f);  // ReLU'd and pooled activations, as fc3 sees them
  std::vector<float> x(batch * s.k);
  for (auto& v : x) v = d(rng);
  if (batch > 1) x[3] = NAN;  // sample 0
  x = lab::round_to(dt_of(e), x);
  const std::vector<unsigned char> xb = lab::bytes_of(dt_of(e), x);
  lab::DeviceBuf dx(xb.size()), dy(batch * s.classes * 4 + 64);
  CUDA_CHECK(cudaMemcpy(dx.p, xb.data(), xb.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dy.p, 0xff, batch * s.classes * 4 + 64));  // NaN: unwritten outputs show
  std::vector<float> y(batch * s.classes + 16), y2(y.size());
  head.template launch<T>(dx.p, dy.p, batch);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(y.data(), dy.p, y.size() * 4, cudaMemcpyDeviceToHost));
  head.template launch<T>(dx.p, dy.p, batch);
  CUDA_CHECK(cudaMemcpy(y2.data(), dy.p, y2.size() * 4, cudaMemcpyDeviceToHost));
  const bool same = std::memcmp(y.data(), y2.data(), y.size() * 4) == 0;
  bool past_ok = true, nan_ok = true;
  for (int i = 0; i < 16; ++i) past_ok &= std::isnan(y[batch * s.classes + i]);
  const std::vector<double> want = reference(spec, x, batch);
  const int64_t from = batch > 1 ? 1 : 0;
  if (batch > 1)
    for (int j = 0; j < s.classes; ++j) nan_ok &= std::isnan(y[j]);
  double err = 0;
  for (int64_t i = from * s.classes; i < batch * s.classes; ++i) {
    const double dv = std::fabs(y[i] - want[i]);
    if (!(dv <= err)) err = dv;
  }
  const double tol = e == Elem::BF16 ? 5e-3 : 1e-3;  // probabilities, absolute
  const bool ok = err <= tol && same && past_ok && nan_ok;
  printf("  %-13s %-4s %4d -> %3d -> %3d batch %6lld: max err %.2e (tol %.0e)%s%s%s %s\n", head.name().c_str(),
         e == Elem::BF16 ? "bf16" : "fp16", s.k, s.hidden, s.classes, static_cast<long long>(batch), err, tol,
         same ? "" : " NOT THE SAME BITS TWICE", past_ok ? "" : " WROTE PAST THE BATCH", nan_ok ? "" : " NAN LOST",
         ok ? "ok" : "FAIL");
  return ok;
}

// HEAD_LAB_MAX_BATCH=N: the checks of at most N samples (sanitizer runs).
int64_t max_batch() {
  const char* env = std::getenv("HEAD_LAB_MAX_BATCH");
  return env && *env ? std::atoll(env) : INT64_MAX;
}

template <class Runner>
int validate_with(std::mt19937& rng) {
  int failed = 0;
  const int64_t most = max_batch();
  for (const Shape& s : {Shape{1024, 32, 10}, Shape{48, 16, 7}, Shape{256, 64, 100}, Shape{32, 48, 33}})
    for (int64_t b : {1, 7, 16, 17, 1000, 10001})
      if (b <= most) failed += !check<__nv_bfloat16, Runner>(s, Elem::BF16, b, rng);
  for (int64_t b : {1, 33, 1000})
    if (b <= most) failed += !check<__half, Runner>(Shape{1024, 32, 10}, Elem::F16, b, rng);
  if (999 <= most) failed += !check<__half, Runner>(Shape{48, 16, 7}, Elem::F16, 999, rng);
  return failed;
}

int validate() {
  std::mt19937 rng(11);
  return validate_with<Direct<head::kRows>>(rng) + validate_with<Mma<1, 2>>(rng) + validate_with<Mma<2, 1>>(rng) +
         validate_with<Interp>(rng);
}

// Leaves out every instruction of kind `drop` (the outputs are wrong; the time is the rest's).
void drop_kind(Program& p, int drop) {
  int n = 0;
  for (int i = 0; i < p.count; ++i)
    if (static_cast<int>(p.instr[i].op) != drop) p.instr[n++] = p.instr[i];
  p.count = n;
}

template <class Runner>
void time_head(const std::string& filter, FILE* csv, Runner& head, int64_t batch, int drop = -1) {
  const char* kinds[] = {"Load", "Store", "Linear", "LayerNorm", "Attention", "Softmax"};
  const std::string name =
      head.name() + " b" + std::to_string(batch) + (drop >= 0 ? " without " : "") + (drop >= 0 ? kinds[drop] : "");
  if (!filter.empty() && name.find(filter) == std::string::npos) return;
  std::mt19937 rng(3);
  const ChainSpec spec = head_chain(1024, 32, 10, Elem::BF16, rng, bits_of);
  std::string why;
  if (!head.template setup<__nv_bfloat16>(spec, &why)) {
    printf("  %s: declined: %s\n", name.c_str(), why.c_str());
    return;
  }
  if constexpr (std::is_same_v<Runner, Interp>) {
    if (drop >= 0) {
      drop_kind(head.built.program, drop);
      CUDA_CHECK(cudaMemcpy(head.prog.p, &head.built.program, sizeof(Program), cudaMemcpyHostToDevice));
    }
  }
  constexpr int kSets = 3;
  std::vector<std::unique_ptr<lab::DeviceBuf>> xs;
  std::uniform_real_distribution<float> d(0.f, 2.f);
  for (int i = 0; i < kSets; ++i) {
    std::vector<float> x(batch * 1024);
    for (auto& v : x) v = d(rng);
    const std::vector<unsigned char> xb = lab::bytes_of(lab::DT::BF16, x);
    xs.push_back(std::make_unique<lab::DeviceBuf>(xb.size()));
    CUDA_CHECK(cudaMemcpy(xs.back()->p, xb.data(), xb.size(), cudaMemcpyHostToDevice));
  }
  lab::DeviceBuf y(batch * 10 * 4);
  const float ms = lab::median_ms([&](int i) { head.template launch<__nv_bfloat16>(xs[i % kSets]->p, y.p, batch); }, 0);
  CUDA_CHECK(cudaGetLastError());
  const double bytes = batch * (1024 * 2.0 + 10 * 4);
  printf("  %-36s %8.4f ms  %6.0f GB/s\n", name.c_str(), ms, bytes / ms / 1e6);
  if (csv) fprintf(csv, "%s,%lld,%.5f\n", name.c_str(), static_cast<long long>(batch), ms);
}

void time_all(const std::string& filter, FILE* csv) {
  printf("timings (conv net head 1024 -> 32 -> 10, bf16 in, float out):\n");
  for (int64_t b : {1, 8, 16, 128, 1000, 2048, 4096, 10000, 50000}) {
    Direct<head::kRows> direct;
    Mma<1, 1> mma16_1;
    Mma<1, 2> mma16_2;
    Mma<1, 4> mma16_4;
    Mma<2, 1> mma32_1;
    Mma<2, 2> mma32_2;
    Interp in;
    time_head(filter, csv, direct, b);
    time_head(filter, csv, mma16_1, b);
    time_head(filter, csv, mma16_2, b);
    time_head(filter, csv, mma16_4, b);
    time_head(filter, csv, mma32_1, b);
    time_head(filter, csv, mma32_2, b);
    time_head(filter, csv, in, b);
  }
  printf("the interpreter's instruction kinds left out in turn (tile 16):\n");
  for (int64_t b : {1, 10000})
    for (int drop : {0, 1, 2, 5}) {
      Interp in;
      time_head(filter, csv, in, b, drop);
    }
}

}  // namespace

int main(int argc, char** argv) { return lab::run_lab(argc, argv, validate, time_all); }
