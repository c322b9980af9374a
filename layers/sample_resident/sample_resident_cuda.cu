// ie.SampleResident on the fused "cuda" kernel set: the chain's program compiled once per engine at plan time
// (weights in W^T blocks of the compute type, biases and tables as floats, the program itself: all uploaded as
// prepared constants), then one launch of the persistent kernel per run. Declines, and the parts run one by one,
// when a part does not fit the kernel, when the tile does not fit in shared memory, or above the batch where the
// per-step kernels are measured faster (see kMaxBatch).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/launch_limits.cuh"
#include "layers/sample_resident/sample_resident.cuh"
#include "layers/sample_resident/sample_resident_chain.h"

namespace ie {
namespace {

// The batches where the persistent kernel beats the per-step kernels (bench, H200, SSA in bf16 and fp16, both paths
// in one run; tools/results/h200/sample_resident/): below one tile of 16 samples the per-step chain's latency is
// lower (0.080 against 0.098 ms at batch 1); above 16384 the per-step kernels, each at the copy bandwidth, are as
// fast as the kernel's tiles, which are bound by their epilogues' instructions (after GELU's cheaper reciprocal:
// 0.667 against 0.706 ms at 16384, 2.601 against 2.596 at 65536). IE_SAMPLE_RESIDENT=always runs the chain at
// every batch (tests, comparisons).
constexpr int64_t kMinBatch = 16, kMaxBatch = 16384;

bool always() {
  const char* env = std::getenv("IE_SAMPLE_RESIDENT");
  return env && std::string(env) == "always";
}

Tensor bytes_tensor(const void* data, size_t bytes) {
  Tensor t(DType::UInt8, {static_cast<int64_t>(bytes)});
  std::memcpy(t.data(), data, bytes);
  return t;
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
  if (!always() && (batch < kMinBatch || batch > kMaxBatch))
    return init.decline("batch ", batch, ": the per-step kernels are faster outside ", kMinBatch, " to ", kMaxBatch,
                        " samples (IE_SAMPLE_RESIDENT=always runs the chain anyway)");
  dev::DeviceLimits limits;
  if (dev::device_limits(&limits) != cudaSuccess) return init.decline("no CUDA device to plan for");
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
