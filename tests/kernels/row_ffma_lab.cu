// Lab for the strict-fp32 row-tile kernel (layers/sample_resident/row_ffma.cuh): builds SSA-shaped chains in float32
// with the engine's builder (build_row_ffma), checks the kernel against the float64-summed reference on odd batches
// and other sizes of the architecture in each compiled form (kRfCompiled), then times it at the SSA's shape
// against the FFMA floor.
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -I. tests/kernels/row_ffma_lab.cu \
//     layers/sample_resident/row_tile_builder.cpp layers/sample_resident/row_ffma_builder.cpp \
//     layers/sample_resident/sample_resident_builder.cpp -o row_ffma_lab
//   ./row_ffma_lab [--check-only] [--no-validate] [--filter S] [--csv PATH]   (ROW_FFMA_QUICK=1: small checks;
//                                                                          ROW_FFMA_BATCHES=N: time batch N alone;
//                                                                          ROW_FFMA_ATTRIBUTION=1: stages left out)
// clang-format off
// lab-sources: layers/sample_resident/row_tile_builder.cpp layers/sample_resident/row_ffma_builder.cpp layers/sample_resident/sample_resident_builder.cpp
// clang-format on
//
// Floor at 65536 samples (SSA): 100 GFLOP (1.53 MFLOP a sample) at the FFMA rate (132 SMs x 128 lanes x 2 x
// 1.98 GHz = 67 TFLOP/s on an H200) = 1.50 ms; 84 MB in and 92 MB out at ~4.2 TB/s = 0.04 ms. The per-step fp32
// path (cuBLASLt products, the engine's LayerNorm and attention kernels) took 4.97 ms.
// Gate: relative L2 <= 1e-5 against the reference (the strict fp32 mode's gate against the CPU backend).
//
// Variants and figures (H200, SSA shape, median of 50 launches over 3 rotated inputs, ms at batch 1 / 512 / 65536;
// tools/results/h200/row_ffma/call_{a..g}). Every check passes from F2 on (relative L2 about 5e-7).
//   F1. 4 x 4 per lane, LayerNorm a thread per row, attention a thread per query: 256 threads 0.208 / 0.209 / 8.52,
//       512 threads 0.160 / 0.160 / 6.50 (results wrong: a chunk read from the slot being filled; racecheck)
//   F2. the slot fixed: 256 0.202 / 0.202 / 8.17, 512 0.156 / 0.157 / 6.35 (ncu at 8192, 256 threads: IPC 1.74,
//       0.60 eligible warps of 2 per scheduler; FFMA 42% of the executed instructions)
//   F3. 8 x 4 per lane (two 4-row groups 32 apart: 256 x 2), encoder items of two samples, attention two queries
//       per thread; chunks by one bulk copy (cp.async.bulk + mbarrier) against every thread's cp.async, A/B in one
//       call: 256 x 2 6.71 against 6.84 ms, 512 x 1 6.10 against 6.14 (bulk kept)
//   F4. more CTAs per SM with 3-sample tiles (32 rows, 128 threads): 2 per SM 9.53 ms, 3 per SM 7.51 (0.111 ms at
//       batch 1: a tile of 3 is a shorter chain); stage attribution at 65536 (512 x 1, 6.25 ms): attention's
//       products 1.76 ms, the MLP's 1.73, LayerNorms 1.14, attention's softmax part 0.58, decoder 0.36
//   F5. tried: the k loop outside the warp tiles (MAXT x 16 independent FFMAs between loads): 512 x 1 11.6 ms
//       against 6.9 (dropped); LayerNorm 4 lanes per row with a run-time share per lane: the guarded loads
//       compiled to a branch and an address per element (LayerNorm 1.14 -> 1.64 ms)
//   F6. LayerNorm's share per lane compiled (8, 16 or 32 columns), the row products software-pipelined: 512 x 1
//       0.143 / 0.144 / 5.76 (LayerNorms 0.67 ms); 256 x 2 7.39, 128 x 1 with 3 per SM 7.40.
//       ncu (512 x 1, 8192): issue slots 65.5% busy, 507 M instructions, FFMA 37.6% of them, the pipelined
//       loads' pointer steps 16%; stalls per issue: not selected 1.59, wait 0.76, no instruction 0.67 (33,000
//       SASS instructions), short scoreboard 0.59, math pipe throttle 0.53.
// Against the per-step fp32 path (README: 0.081 / 0.127 / 4.98 ms) this kernel is slower at every batch: a
// 12-sample tile's products are 128 x 64..192 x 64, too small for more than 4 x 4 per lane with 16 warps, so two
// 16-byte loads and their address steps come with every 16 FFMAs, and LayerNorm, attention and the epilogues run
// at a fraction of the warps.
//   L1. the row-per-lane form (layers/sample_resident/row_lane.cuh: a row in one lane's registers, W broadcast from
//       shared memory, 4 FFMAs per 16-byte load, no A loads; 24 samples per CTA, 255 registers, no spills):
//       0.375 / 0.378 / 8.04 ms (call_h). ncu at 8192: 390 M instructions (23% fewer than F6) but issue slots only
//       35% busy: no instruction 2.26 stall cycles per issue (fully unrolled products: a head's q, k, v and
//       projection are ~5,000 SASS instructions, past the instruction caches), short scoreboard 0.83. Attribution
//       at 65536: attention's products 3.73 ms against the MLP's 1.79 for the same FLOPs (the MLP's loop body is
//       half the size), attention's softmax part 1.18, LayerNorms 0.79.
// Neither form is used by the engine (strict fp32 stays per step); the way on: products whose loop bodies stay in
// the instruction cache (the row's input in shared memory, 16-byte loads of it per 4 k) with 4 FFMAs per load.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "layers/sample_resident/row_ffma.cuh"
#include "layers/sample_resident/row_ffma_builder.h"
#include "layers/sample_resident/row_lane.cuh"
#include "tests/kernels/lab_util.cuh"
#include "tests/kernels/ssa_chain.h"
#include "tests/kernels/ssa_reference.h"

using namespace ie::sr;

namespace {

uint16_t no_bits(float, Elem) { return 0; }
float no_float(uint16_t, Elem) { return 0.f; }

// One kernel under test: built for a chain, launched on a batch, its stages left out by skip bits.
struct Runner {
  virtual ~Runner() = default;
  virtual std::string name() const = 0;
  virtual bool setup(const ChainSpec& spec, std::string* why) = 0;
  virtual void launch(const float* x, float* recon, float* latent, int64_t batch) = 0;
  virtual int tile() const = 0;
  virtual std::string geometry() const = 0;
  virtual void set_skip(int skip) = 0;
  int grid_cap = 0;
  template <class Fn>
  void prepare(Fn fn, int threads, int smem) {
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, smem));
    grid_cap = std::max(1, per_sm) * prop.multiProcessorCount;
  }
  int grid(int64_t batch) const { return static_cast<int>(std::min<int64_t>((batch + tile() - 1) / tile(), grid_cap)); }
};

template <class Built>
struct Uploaded {
  lab::DeviceBuf* w = nullptr;
  lab::DeviceBuf* f = nullptr;
  void upload(const Built& b) {
    w = new lab::DeviceBuf(b.weights.size() * 4);
    f = new lab::DeviceBuf(b.floats.size() * 4);
    CUDA_CHECK(cudaMemcpy(w->p, b.weights.data(), b.weights.size() * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(f->p, b.floats.data(), b.floats.size() * 4, cudaMemcpyHostToDevice));
  }
  ~Uploaded() { delete w, delete f; }
};

cudaDeviceProp device_prop() {
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  return prop;
}

// The tiled form (row_ffma.cuh) in one compiled form: "row_ffma_256x2c1" (threads x row groups, CTAs per SM).
struct TiledRunner : Runner {
  RfCompiled form;
  RfBuilt built;
  Uploaded<RfBuilt> dev;
  rf::KernelFn fn = nullptr;
  explicit TiledRunner(const RfCompiled& f) : form(f) {}
  std::string name() const override {
    return "row_ffma_" + std::to_string(form.threads) + "x" + std::to_string(form.row_groups) + "c" +
           std::to_string(form.ctas_per_sm);
  }
  bool setup(const ChainSpec& spec, std::string* why) override {
    const cudaDeviceProp prop = device_prop();
    RfBudget budget;
    budget.smem_bytes = static_cast<int>(prop.sharedMemPerBlockOptin);
    budget.smem_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
    budget.smem_reserved = static_cast<int>(prop.reservedSharedMemPerBlock);
    budget.compiled = form;
    if (!build_row_ffma(spec, budget, &built, why)) return false;
    dev.upload(built);
    fn = rf::kernel_for(built.layout);
    prepare(fn, built.layout.threads, built.layout.smem_bytes);
    return true;
  }
  void launch(const float* x, float* recon, float* latent, int64_t batch) override {
    rf::Args a;
    a.l = built.layout, a.weights = static_cast<const float*>(dev.w->p), a.floats = static_cast<const float*>(dev.f->p);
    a.x = x, a.recon = recon, a.latent = latent, a.batch = batch;
    fn<<<grid(batch), built.layout.threads, built.layout.smem_bytes>>>(a);
  }
  int tile() const override { return built.layout.tile; }
  std::string geometry() const override {
    return std::to_string(built.layout.rows) + " rows of " + std::to_string(built.layout.rows_pad);
  }
  void set_skip(int skip) override { built.layout.m.skip = skip; }
};

// The row-per-lane form (row_lane.cuh): "row_lane".
struct LaneRunner : Runner {
  RlBuilt built;
  Uploaded<RlBuilt> dev;
  rl::KernelFn fn = nullptr;
  std::string name() const override { return "row_lane"; }
  bool setup(const ChainSpec& spec, std::string* why) override {
    RlBudget budget;
    budget.smem_bytes = static_cast<int>(device_prop().sharedMemPerBlockOptin);
    if (!build_row_lane(spec, budget, &built, why)) return false;
    fn = rl::kernel_for(built.layout);
    if (!fn) {
      *why = "no compiled kernel for these sizes";
      return false;
    }
    dev.upload(built);
    prepare(fn, built.layout.warps * 32, built.layout.smem_bytes);
    return true;
  }
  void launch(const float* x, float* recon, float* latent, int64_t batch) override {
    rl::Args a;
    a.l = built.layout, a.weights = static_cast<const float*>(dev.w->p), a.floats = static_cast<const float*>(dev.f->p);
    a.x = x, a.recon = recon, a.latent = latent, a.batch = batch;
    fn<<<grid(batch), built.layout.warps * 32, built.layout.smem_bytes>>>(a);
  }
  int tile() const override { return built.layout.tile; }
  std::string geometry() const override {
    return std::to_string(built.layout.warps) + " warps of " + std::to_string(built.layout.spw) + " samples";
  }
  void set_skip(int skip) override { built.layout.m.skip = skip; }
};

// Every kernel under test: the row-per-lane form, then each compiled tiled form.
std::vector<std::unique_ptr<Runner>> runners() {
  std::vector<std::unique_ptr<Runner>> r;
  r.push_back(std::make_unique<LaneRunner>());
  for (const RfCompiled& form : kRfCompiled) r.push_back(std::make_unique<TiledRunner>(form));
  return r;
}

double rel_l2(const std::vector<float>& got, const std::vector<float>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = static_cast<double>(got[i]) - want[i];
    num += d * d, den += static_cast<double>(want[i]) * want[i];
  }
  return std::sqrt(num / std::max(den, 1e-30));
}

std::vector<float> spectra(int64_t batch, int per, std::mt19937& rng) {
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> x(static_cast<size_t>(batch) * per);
  for (float& v : x) v = d(rng);
  return x;
}

// One shape of the architecture, each compiled form, every batch: the kernel against the reference.
int check_shape(const Shape& s, const char* name, const std::vector<int64_t>& batches) {
  int failed = 0;
  std::mt19937 rng(7);
  const ChainSpec spec = ssa_chain(s, Elem::F32, rng, no_bits);
  for (auto& run : runners()) {
    std::string why;
    if (!run->setup(spec, &why)) {
      printf("%-10s %s: the builder declines: %s\n", name, run->name().c_str(), why.c_str());
      continue;
    }
    for (int64_t batch : batches) {
      const int in_per = s.seq * s.slice;
      const std::vector<float> x = spectra(batch, in_per, rng);
      std::vector<float> rr(static_cast<size_t>(batch) * in_per), rz(static_cast<size_t>(batch) * s.latent);
      ssa_reference(spec, x, batch, &rr, &rz, no_float);
      lab::DeviceBuf dx(x.size() * 4), dr(rr.size() * 4 + 64), dz(rz.size() * 4 + 64);
      CUDA_CHECK(cudaMemcpy(dx.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemset(dr.p, 0xff, rr.size() * 4 + 64));  // NaN: a sample left unwritten fails
      CUDA_CHECK(cudaMemset(dz.p, 0xff, rz.size() * 4 + 64));
      run->launch(static_cast<float*>(dx.p), static_cast<float*>(dr.p), static_cast<float*>(dz.p), batch);
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> gr(rr.size() + 16), gz(rz.size() + 16);
      CUDA_CHECK(cudaMemcpy(gr.data(), dr.p, gr.size() * 4, cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(gz.data(), dz.p, gz.size() * 4, cudaMemcpyDeviceToHost));
      bool past_ok = true;  // nothing written past the batch
      for (size_t i = rr.size(); i < gr.size(); ++i) past_ok &= !(gr[i] == gr[i]);
      for (size_t i = rz.size(); i < gz.size(); ++i) past_ok &= !(gz[i] == gz[i]);
      gr.resize(rr.size()), gz.resize(rz.size());
      const double er = rel_l2(gr, rr), ez = rel_l2(gz, rz);
      const bool ok = er <= 1e-5 && ez <= 1e-5 && past_ok;
      failed += !ok;
      printf("%-10s %s, tile %2d (%s), batch %6lld: recon %.2e latent %.2e%s  %s\n", name, run->name().c_str(),
             run->tile(), run->geometry().c_str(), static_cast<long long>(batch), er, ez,
             past_ok ? "" : " (written past the batch)", ok ? "ok" : "FAILED");
    }
  }
  return failed;
}

// ROW_FFMA_QUICK=1: batches of at most 33 (the sanitizers' runs).
int validate() {
  const bool quick = std::getenv("ROW_FFMA_QUICK") != nullptr;
  int failed = 0;
  failed +=
      check_shape(Shape{}, "ssa", quick ? std::vector<int64_t>{1, 7, 33} : std::vector<int64_t>{1, 7, 33, 1000, 10001});
  if (quick) return failed;
  Shape narrow;  // other sizes of the architecture: 7 slices of 16, width 48 in 3 heads, one block
  narrow.seq = 7, narrow.slice = 16, narrow.width = 48, narrow.heads = 3, narrow.hidden = 96, narrow.blocks = 1;
  narrow.latent = 20;
  failed += check_shape(narrow, "narrow", {1, 7, 1000});
  Shape wide;  // 16 slices, width 128 in 4 heads of 32, three blocks
  wide.seq = 16, wide.slice = 32, wide.width = 128, wide.heads = 4, wide.hidden = 256, wide.blocks = 3;
  wide.latent = 64;
  failed += check_shape(wide, "wide", {1, 33, 1000});
  return failed;
}

void time_ssa(const std::string& filter, FILE* csv) {
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const double peak = prop.multiProcessorCount * 128.0 * 2 * clock_khz * 1e3 / 1e12;  // TFLOP/s
  std::mt19937 rng(11);
  const Shape s;
  const ChainSpec spec = ssa_chain(s, Elem::F32, rng, no_bits);
  const double flops = chain_flops_per_sample(spec);
  if (csv) fprintf(csv, "kernel,tile,batch,ms,tflops,pct_ffma\n");
  printf("FFMA peak %.1f TFLOP/s (%d SMs at %.2f GHz); %.2f MFLOP a sample\n", peak, prop.multiProcessorCount,
         clock_khz / 1e6, flops / 1e6);
  for (auto& run : runners()) {
    std::string why;
    const std::string name = run->name();
    if (name.find(filter) == std::string::npos) continue;
    if (!run->setup(spec, &why)) {
      printf("%s: the builder declines: %s\n", name.c_str(), why.c_str());
      continue;
    }
    if (std::getenv("ROW_FFMA_ATTRIBUTION")) {  // each stage's work left out in turn, batch 65536
      const int64_t batch = 65536;
      const int in_per = s.seq * s.slice;
      std::vector<lab::DeviceBuf*> xs;
      for (int i = 0; i < 3; ++i) {
        const std::vector<float> x = spectra(batch, in_per, rng);
        xs.push_back(new lab::DeviceBuf(x.size() * 4));
        CUDA_CHECK(cudaMemcpy(xs.back()->p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
      }
      lab::DeviceBuf dr(static_cast<size_t>(batch) * in_per * 4), dz(static_cast<size_t>(batch) * s.latent * 4);
      const char* what[] = {"all",     "embedding",   "attention GEMMs", "MLP GEMMs",     "encoder",
                            "decoder", "output GEMM", "LayerNorms",      "attention core"};
      const int skips[] = {0,
                           ffma::skip::kSkipEmbed,
                           ffma::skip::kSkipAttention,
                           ffma::skip::kSkipMlp,
                           ffma::skip::kSkipEncoder,
                           ffma::skip::kSkipDecoder,
                           ffma::skip::kSkipOutput,
                           ffma::skip::kSkipNorms,
                           ffma::skip::kSkipAttentionCore};
      float all = 0;
      for (int i = 0; i < 9; ++i) {
        run->set_skip(skips[i]);
        const float ms = lab::median_ms(
            [&](int r) {
              run->launch(static_cast<float*>(xs[r % 3]->p), static_cast<float*>(dr.p), static_cast<float*>(dz.p),
                          batch);
            },
            0);
        if (i == 0) all = ms;
        printf("%s attribution at %lld: without %-15s %8.4f ms  (%.4f ms)\n", name.c_str(),
               static_cast<long long>(batch), what[i], ms, all - ms);
      }
      run->set_skip(0);
      for (auto* p : xs) delete p;
      continue;
    }
    std::vector<int64_t> batches = {1, 32, 512, 4096, 65536};
    if (const char* env = std::getenv("ROW_FFMA_BATCHES")) batches = {std::atoll(env)};  // one batch (ncu)
    for (int64_t batch : batches) {
      constexpr int kRot = 3;  // inputs rotated so that L2 does not hold the one being read
      const int in_per = s.seq * s.slice;
      std::vector<lab::DeviceBuf*> xs;
      for (int i = 0; i < kRot; ++i) {
        const std::vector<float> x = spectra(batch, in_per, rng);
        xs.push_back(new lab::DeviceBuf(x.size() * 4));
        CUDA_CHECK(cudaMemcpy(xs.back()->p, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
      }
      lab::DeviceBuf dr(static_cast<size_t>(batch) * in_per * 4), dz(static_cast<size_t>(batch) * s.latent * 4);
      const float ms = lab::median_ms(
          [&](int i) {
            run->launch(static_cast<float*>(xs[i % kRot]->p), static_cast<float*>(dr.p), static_cast<float*>(dz.p),
                        batch);
          },
          0);
      CUDA_CHECK(cudaGetLastError());
      const double tf = flops * batch / (ms * 1e-3) / 1e12;
      printf("%s tile %d: batch %6lld  %8.4f ms  %6.2f TFLOP/s  %5.1f%% of FFMA\n", name.c_str(), run->tile(),
             static_cast<long long>(batch), ms, tf, 100 * tf / peak);
      if (csv)
        fprintf(csv, "%s,%d,%lld,%.5f,%.3f,%.2f\n", name.c_str(), run->tile(), static_cast<long long>(batch), ms, tf,
                100 * tf / peak);
      for (auto* p : xs) delete p;
    }
  }
}

}  // namespace

int main(int argc, char** argv) { return lab::run_lab(argc, argv, validate, time_ssa); }
