// ie.SampleResident on the fused "cuda" kernel set. A chain of the pre-LN transformer autoencoder's form (the SSA
// at any size the row-tile kernel is compiled for) runs on the row-tile kernel (row_tile.cuh: samples in
// registers, faster than the per-step kernels at every batch; up to about one wave of samples, four warps share
// each sample, one attention head each: row_heads.cuh); a classifier head (a product with an activation, a
// second product, a softmax: the conv net's fc3 -> fc4 -> softmax) on a head kernel (head_mma.cuh, head_kernel.cuh);
// any other chain is compiled into the program of the interpreting kernel (sample_resident.cuh). Either way the layout
// is made once per engine at plan time and uploaded as prepared constants, then one launch per run. Declines, and the
// parts run one by one, when a part does not fit the interpreter, when the tile does not fit in shared memory, or, for
// the interpreter, outside the batches where it is measured faster than the per-step kernels (see kMaxBatch).
// In strict fp32 the transformer's chain runs as the split sequence (split_sequence.h: a few launches of float32-exact
// Tensor Core products with the LayerNorms fused in), or per step where it declines.
// IE_SAMPLE_RESIDENT=interp runs the interpreter where the row-tile or head kernel would, =always the interpreter at
// every batch, =head_cores or =head_mma one head kernel (tests, comparisons).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/launch_limits.cuh"
#include "layers/sample_resident/head_builder.h"
#include "layers/sample_resident/head_kernel.cuh"
#include "layers/sample_resident/head_mma.cuh"
#include "layers/sample_resident/row_heads.cuh"
#include "layers/sample_resident/row_tile_builder.h"
#include "layers/sample_resident/row_tile_cta.h"
#include "layers/sample_resident/sample_resident.cuh"
#include "layers/sample_resident/sample_resident_chain.h"
#include "layers/sample_resident/split_sequence.h"

namespace ie {
namespace {

// The batches where the persistent kernel beats the per-step kernels (bench, H200, SSA in bf16 and fp16, both paths
// in one run; tools/results/h200/sample_resident/): below one tile of 16 samples the per-step chain's latency is
// lower (0.080 against 0.098 ms at batch 1); above 16384 the per-step kernels, each at the copy bandwidth, are as
// fast as the kernel's tiles, which are bound by their epilogues' instructions (after GELU's cheaper reciprocal:
// 0.667 against 0.706 ms at 16384, 2.601 against 2.596 at 65536).
constexpr int64_t kMinBatch = 16, kMaxBatch = 16384;

bool env_is(const char* value) {
  const char* env = std::getenv("IE_SAMPLE_RESIDENT");
  return env && std::string(env) == value;
}
bool always() { return env_is("always"); }

Tensor bytes_tensor(const void* data, size_t bytes) {
  Tensor t(DType::UInt8, {static_cast<int64_t>(bytes)});
  std::memcpy(t.data(), data, bytes);
  return t;
}

// CTAs of the row-tile kernel for `m` resident on one SM (0: it does not fit).
template <class T>
int row_tile_per_sm(const sr::RtModel& m, const dev::DeviceLimits& limits) {
  int per_sm = 0;
  if (dev::resident_blocks(sr::rt::kernel_for<T, 64, 16>(m.warps, m.mt, m.group), m.warps * 32, m.smem_bytes,
                           limits.smem_optin, &per_sm) != cudaSuccess)
    return 0;
  return per_sm;
}

// The chain on the row-tile kernel, or nullptr (and *why) when it is not of that form.
std::unique_ptr<Kernel> make_row_tile(const KernelInit& init, const sr::ChainSpec& spec, int64_t batch,
                                      const dev::DeviceLimits& limits, std::string* why) {
  sr::RtBuilt built;
  double best = 0;
  for (const sr::RtCtaShape& shape : sr::kRtCtaShapes) {
    sr::RtBudget budget;
    budget.smem_bytes = limits.smem_optin;
    budget.warps = shape.warps, budget.mt = shape.mt, budget.group = shape.group;
    sr::RtBuilt b;
    if (!sr::build_row_tile(spec, budget, &b, why)) continue;
    const int per_sm = spec.compute == sr::Elem::F16 ? row_tile_per_sm<__half>(b.model, limits)
                                                     : row_tile_per_sm<__nv_bfloat16>(b.model, limits);
    if (per_sm < 1) {
      *why = "the row-tile kernel's CTA does not fit on an SM";
      continue;
    }
    const double us = sr::rt_estimate_us(shape, b.model, batch, static_cast<int64_t>(per_sm) * limits.sms);
    if (best == 0 || us < best) best = us, built = std::move(b);
  }
  if (best == 0) return nullptr;
  if (static_cast<int>(init.outputs.size()) != 2) {
    *why = "the chain's outputs do not match the node's";
    return nullptr;
  }
  const auto* weights = static_cast<const unsigned char*>(
      init.prepared("row_tile_weights", [&] { return bytes_tensor(built.weights.data(), built.weights.size()); }));
  const auto* floats = static_cast<const float*>(init.prepared(
      "row_tile_floats", [&] { return bytes_tensor(built.floats.data(), built.floats.size() * sizeof(float)); }));
  const sr::RtModel model = built.model;
  const DType compute = spec.compute == sr::Elem::F16 ? DType::Float16 : DType::BFloat16;
  std::unique_ptr<Kernel> kernel;
  cuda::dispatch_device<__half, __nv_bfloat16>(compute, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto* fn = sr::rt::kernel_for<T, 64, 16>(model.warps, model.mt, model.group);
    int per_sm = 0;
    if (dev::resident_blocks(fn, model.warps * 32, model.smem_bytes, limits.smem_optin, &per_sm) != cudaSuccess ||
        per_sm < 1)
      return;
    const int64_t tiles = (batch + model.tile - 1) / model.tile;
    const unsigned grid = static_cast<unsigned>(std::min<int64_t>(tiles, static_cast<int64_t>(per_sm) * limits.sms));
    kernel = make_kernel([=](KernelContext& ctx) {
      sr::rt::Args a;
      a.m = model, a.weights = weights, a.floats = floats, a.batch = batch;
      a.x = ctx.inputs[0].data;
      a.recon = ctx.outputs[model.recon_output].data;
      a.latent = ctx.outputs[model.latent_output].data;
      fn<<<grid, model.warps * 32, model.smem_bytes, cuda::stream_of(ctx)>>>(a);
      IE_CUDA_CHECK(cudaGetLastError());
    });
  });
  if (!kernel) *why = "the row-tile kernel's CTA does not fit on an SM";
  return kernel;
}

// The chain on a head kernel, or nullptr (and *why) when it is not of that form or neither kernel takes it: the
// MMA head (head_mma.cuh: the first product on the Tensor Cores, hidden sizes up to 64), faster than the CUDA-core
// head at every batch (lab, H200, conv net head, bf16: 1: 0.0069 against 0.0077 ms, 1000: 0.0096 against 0.0150,
// 10000: 0.0246 against 0.114 in one call; after M2 0.0071, 0.0079, 0.0198; tests/kernels/head_chain_lab.cu,
// tools/results/h200/head_mma/), else the CUDA-core head (head_kernel.cuh) up to
// kHeadMaxBatch samples. The CUDA-core head against the per-step path (H200, conv net, whole net, bf16, compute
// p50: 1: 0.0220 against 0.0219 ms per step, 16: 0.0291 against 0.0364, 128: 0.0335 against 0.0425, 1000: 0.0963
// against 0.1004, 2048: 0.1685 against 0.1612; tools/results/h200/head_chain/).
// IE_SAMPLE_RESIDENT=head_cores or head_mma forces one of them (tests).
constexpr int64_t kHeadMaxBatch = 1024;
constexpr int kHeadMmaTiles = 1, kHeadMmaGroup = 2;  // m-tiles of 16 samples per CTA, chunks in flight (lab)

std::unique_ptr<Kernel> make_head(const KernelInit& init, const sr::ChainSpec& spec, int64_t batch,
                                  const dev::DeviceLimits& limits, std::string* why) {
  constexpr int rows = sr::head::kRows;
  sr::HeadBuilt built;
  if (!sr::build_head(spec, rows, &built, why)) return nullptr;
  const sr::HeadModel model = built.model;
  const bool force_cores = env_is("head_cores"), force_mma = env_is("head_mma");
  const int mma_smem = sr::head::head_mma_smem_bytes(model, kHeadMmaTiles);
  std::string why_mma, why_cores;
  if (model.hidden > sr::head::kMmaMaxHidden)
    why_mma = concat("hidden ", model.hidden, " is past the MMA head's ", sr::head::kMmaMaxHidden);
  else if (mma_smem > limits.smem_optin)
    why_mma = concat("the MMA head's tile needs ", mma_smem, " bytes of shared memory (", limits.smem_optin, ")");
  // The CUDA-core head stages its tile's input rows; the MMA head reads them from global memory, so it also takes
  // inputs too wide for that tile.
  if (model.smem_bytes > limits.smem_optin)
    why_cores = concat("the CUDA-core head's tile of ", rows, " samples needs ", model.smem_bytes,
                       " bytes of shared memory (", limits.smem_optin, ")");
  else if (!force_cores && batch > kHeadMaxBatch)
    why_cores = concat("batch ", batch, ": past ", kHeadMaxBatch,
                       " the per-step kernels are faster than the CUDA-core head kernel");
  const bool mma = why_mma.empty() && !force_cores;
  if (!mma && (force_mma || !why_cores.empty())) {
    *why = force_mma ? why_mma : force_cores ? why_cores : concat(why_cores, ", and ", why_mma);
    return nullptr;
  }
  const void* weights = init.prepared(
      "head_weights", [&] { return bytes_tensor(built.weights.data(), built.weights.size() * sizeof(uint16_t)); });
  const auto* floats = static_cast<const float*>(init.prepared(
      "head_floats", [&] { return bytes_tensor(built.floats.data(), built.floats.size() * sizeof(float)); }));
  const DType compute = spec.compute == sr::Elem::F16 ? DType::Float16 : DType::BFloat16;
  std::unique_ptr<Kernel> kernel;
  cuda::dispatch_device<__half, __nv_bfloat16>(compute, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto* fn = mma ? sr::head::head_mma_kernel_for<T, kHeadMmaTiles, kHeadMmaGroup>(model.hidden)
                   : sr::head::head_kernel<T, rows>;
    const int threads = mma ? sr::head::kMmaWarps * 32 : sr::head::kThreads;
    const int smem = mma ? mma_smem : model.smem_bytes;
    const int tile = mma ? 16 * kHeadMmaTiles : rows;
    int per_sm = 0;
    if (dev::resident_blocks(fn, threads, smem, limits.smem_optin, &per_sm) != cudaSuccess || per_sm < 1) return;
    const unsigned grid = static_cast<unsigned>((batch + tile - 1) / tile);
    kernel = make_kernel([=](KernelContext& ctx) {
      sr::head::Args a;
      a.m = model, a.weights = weights, a.floats = floats, a.batch = batch;
      a.x = ctx.inputs[0].data;
      a.y = ctx.outputs[0].data;
      if (reinterpret_cast<uintptr_t>(a.x) % 16)
        throw std::runtime_error("the head kernel's input is not 16-byte aligned");  // the arena aligns to 256
      fn<<<grid, threads, smem, cuda::stream_of(ctx)>>>(a);
      IE_CUDA_CHECK(cudaGetLastError());
    });
  });
  if (!kernel) *why = "the head kernel's CTA does not fit on an SM";
  return kernel;
}

std::unique_ptr<Kernel> make_sample_resident(const KernelInit& init) {
  sr::ChainSpec spec;
  std::string why;
  try {
    // The planner also asks for the node with its tensors widened to float32, where the parts' types disagree.
    if (!sample_resident_spec(init.node, init.inputs, init.constants, init.opset, true, &spec, &why))
      return init.decline(why);
  } catch (const std::exception& e) {
    return init.decline(e.what());
  }
  const int64_t batch = init.inputs[0].shape[0];
  if (spec.compute == sr::Elem::F32) {  // fp32 and tf32: the split sequence, else per step
    if (auto k = make_split_sequence(init, spec, batch, &why)) return k;
    return init.decline(why);
  }
  dev::DeviceLimits limits;
  if (dev::device_limits(&limits) != cudaSuccess) return init.decline("no CUDA device to plan for");
  std::string why_row_tile = "IE_SAMPLE_RESIDENT chooses the interpreter", why_head = why_row_tile;
  if (!env_is("interp") && !always()) {
    if (auto k = make_row_tile(init, spec, batch, limits, &why_row_tile)) return k;
    if (init.outputs.size() == 1)
      if (auto k = make_head(init, spec, batch, limits, &why_head)) return k;
  }
  // The batch range (kMinBatch, kMaxBatch) was measured on transformer chains. A chain of products and a softmax that
  // the head kernel does not take stays per step at every batch: the interpreter was slower there (the conv net's head,
  // H200, bf16: 0.0336 against 0.0217 ms for the whole net at batch 1, 0.105 against 0.100 at 1000, 0.671 against 0.620
  // at 10000).
  if (!always() && !sr::has_norm_or_attention(spec))
    return init.decline("a chain of products and a softmax runs per step where the head kernel declines (", why_head,
                        "): the interpreter is slower there at every batch (IE_SAMPLE_RESIDENT=always runs it anyway)");
  if (!always() && (batch < kMinBatch || batch > kMaxBatch))
    return init.decline("batch ", batch, ": the per-step kernels are faster outside ", kMinBatch, " to ", kMaxBatch,
                        " samples for a chain the interpreting kernel runs (IE_SAMPLE_RESIDENT=always runs it anyway; ",
                        why_row_tile, ")");
  sr::Budget budget;
  budget.smem_bytes = limits.smem_optin;
  budget.max_warps = sr::kMaxThreads / 32;
  sr::Built built;
  if (!sr::build_program(spec, budget, &built, &why)) return init.decline(why);
  const int inputs = built.program.inputs, outputs = built.program.outputs;
  if (outputs != static_cast<int>(init.outputs.size()))
    return init.decline("the chain's outputs do not match the node's");
  const auto* program = static_cast<const sr::Program*>(
      init.prepared("program", [&] { return bytes_tensor(&built.program, sizeof(sr::Program)); }));
  const void* weights = init.prepared(
      "weights", [&] { return bytes_tensor(built.weights.data(), built.weights.size() * sizeof(uint16_t)); });
  const auto* floats = static_cast<const float*>(
      init.prepared("floats", [&] { return bytes_tensor(built.floats.data(), built.floats.size() * sizeof(float)); }));
  const int threads = built.program.warps * 32, smem = built.program.smem_bytes;
  const DType compute = spec.compute == sr::Elem::F16 ? DType::Float16 : DType::BFloat16;
  std::unique_ptr<Kernel> kernel;
  cuda::dispatch_device<__half, __nv_bfloat16>(compute, [&](auto tag) {
    using T = typename decltype(tag)::type;
    int per_sm = 0;
    if (dev::resident_blocks(sr::sample_resident_kernel<T>, threads, smem, limits.smem_optin, &per_sm) != cudaSuccess ||
        per_sm < 1)
      return;
    const int64_t tiles = (batch + built.program.tile - 1) / built.program.tile;
    const unsigned grid = static_cast<unsigned>(std::min<int64_t>(tiles, static_cast<int64_t>(per_sm) * limits.sms));
    kernel = make_kernel([=](KernelContext& ctx) {
      sr::Args a;
      a.program = program, a.weights = weights, a.floats = floats, a.batch = batch;
      for (int i = 0; i < inputs; ++i) a.io[i] = ctx.inputs[i].data;
      for (int j = 0; j < outputs; ++j) a.io[inputs + j] = ctx.outputs[j].data;
      sr::sample_resident_kernel<T><<<grid, threads, smem, cuda::stream_of(ctx)>>>(a);
      IE_CUDA_CHECK(cudaGetLastError());
    });
  });
  if (!kernel) return init.decline("the tile of ", built.program.tile, " samples does not fit on an SM");
  return kernel;
}

}  // namespace

IE_REGISTER_OPS(sample_resident_cuda) {
  OpRegistry::get().add_kernel("ie", "SampleResident", kernel_set::kCuda, make_sample_resident);
}

}  // namespace ie
