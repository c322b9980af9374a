// ie.Attention on the fused "cuda" kernel set: the kernel of attention_fused.cuh in float32, float16 and bfloat16
// storage (RoPE, scores, softmax and sums in float). Declines, with the reason, the shapes it does not take (odd
// head dims, heads whose q, k and v exceed shared memory, sequences beyond a CTA); the node then runs as the
// nodes it replaced.
#include "engine/backend/cuda/cuda_check.h"
#include "engine/registry/op_def.h"
#include "layers/attention/attention_fused.cuh"
#include "layers/attention/attention_setup.h"
#include "layers/common/cuda_util.cuh"

namespace ie {
namespace {

std::unique_ptr<Kernel> make_attention_fused(const KernelInit& init) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < init.inputs.size() && init.has_input(i); ++i) shapes.push_back(init.inputs[i].shape);
  const AttentionSetup s = resolve_attention(init.node, shapes);
  const DType t = init.inputs[0].dtype;
  if (t != DType::Float32 && t != DType::Float16 && t != DType::BFloat16)
    return init.decline("element type ", dtype_name(t), " (the kernel takes float32, float16 and bfloat16)");
  const bool rope = s.rope != RopeMode::None;
  if (rope && (init.inputs[3].dtype != DType::Float32 || init.inputs[4].dtype != DType::Float32))
    return init.decline("RoPE tables in another type than float32");
  if (s.seq > INT32_MAX || s.dim > INT32_MAX || s.heads > INT32_MAX) return init.decline("dims beyond 2^31 - 1");
  att::Params probe;
  probe.batch = s.batch;
  probe.seq = static_cast<int>(s.seq);
  probe.heads = static_cast<int>(s.heads);
  probe.dim = static_cast<int>(s.dim);
  dev::DeviceLimits limits;
  if (dev::device_limits(&limits) != cudaSuccess) return init.decline("no CUDA device to plan for");
  att::Layout layout;
  const char* why = nullptr;
  if (!att::plan_layout(probe, static_cast<int>(dtype_size(t)), att::kDefaultThreads, att::kDefaultSmem,
                        static_cast<size_t>(limits.smem_optin), &layout, &why))
    return init.decline(why);
  std::unique_ptr<Kernel> kernel;
  cuda::dispatch_device<float, __half, __nv_bfloat16>(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernel = make_kernel([s, probe, rope](KernelContext& ctx) {
      att::Params p = probe;
      p.batch = ctx.inputs[0].shape[0];
      p.q = ctx.inputs[0].data;
      p.k = ctx.inputs[1].data;
      p.v = ctx.inputs[2].data;
      p.y = ctx.outputs[0].data;
      p.cos = rope ? ctx.inputs[3].as<const float>() : nullptr;
      p.sin = rope ? ctx.inputs[4].as<const float>() : nullptr;
      p.scale = s.scale;
      IE_CUDA_CHECK(att::launch<T>(p, cuda::stream_of(ctx)));
    });
  });
  return kernel;
}

}  // namespace

IE_REGISTER_OPS(attention_fused) {
  OpRegistry::get().add_kernel("ie", "Attention", kernel_set::kCuda, make_attention_fused);
}

}  // namespace ie
