// ie.Attention on the fused "cuda" kernel set: the kernel of attention_fused.cuh in float32, float16 and bfloat16
// storage (RoPE, scores, softmax and sums in float), and with its projections (projection = 1) the kernel of
// attention_projected.cuh in float16 and bfloat16. Declines, with the reason, the shapes they do not take (odd
// head dims, heads whose q, k and v exceed shared memory, sequences beyond a CTA, float32 projections); the node
// then runs as the nodes it replaced.
#include "engine/backend/cuda/cuda_check.h"
#include "engine/core/float_convert.h"
#include "engine/registry/op_def.h"
#include "layers/attention/attention_fused.cuh"
#include "layers/attention/attention_projected.cuh"
#include "layers/attention/attention_setup.h"
#include "layers/common/cuda_util.cuh"

namespace ie {
namespace {

// Above this many rows (batch x sequence) the projected kernel loses to the three Linear products and the
// attention kernel: the attention lab at the SSA's shape, bf16, H200: 0.017 against 0.028 ms at 5120 rows,
// 0.69 against 0.47 ms at 655360 (its four-warp groups wait on four barriers each; the separate kernels keep
// far more warps in flight). Linear between the two, the crossover is near 38000 rows.
constexpr int64_t kProjectedMaxRows = 32768;

// W as the projected kernel reads it: [kp, 3E] in the storage type, rows past K zero.
Tensor pad_weight(const Tensor& w, int64_t kp, DType storage) {
  const Tensor w32 = convert_floats(w, DType::Float32);
  Tensor padded(DType::Float32, {kp, w.dim(1)});
  float* dst = padded.data_as<float>();
  std::fill(dst, dst + padded.numel(), 0.f);
  std::copy(w32.data_as<float>(), w32.data_as<float>() + w32.numel(), dst);
  return convert_floats(padded, storage);
}

std::unique_ptr<Kernel> make_projected(const KernelInit& init, const AttentionSetup& s, att::Params probe,
                                       const dev::DeviceLimits& limits) {
  const DType t = init.inputs[0].dtype;
  if (!init.constants[1] || !init.constants[2]) return init.decline("projection weight and bias must be constant");
  if (s.k > (1 << 16)) return init.decline("x rows wider than 65536");
  if (s.batch * s.seq > kProjectedMaxRows)
    return init.decline("more than ", kProjectedMaxRows,
                        " rows: the separate products and attention kernel are faster there (see kProjectedMaxRows)");
  probe.width = static_cast<int>(s.k);
  probe.width_padded = static_cast<int>((s.k + 15) / 16 * 16);
  att::ProjectedLayout layout;
  const char* why = nullptr;
  if (!att::plan_projected(probe, static_cast<int>(dtype_size(t)), att::kProjectedThreads, 2 * att::kDefaultSmem,
                           static_cast<size_t>(limits.smem_optin), &layout, &why))
    return init.decline(why);
  const void* w = init.prepared(concat("projection/", dtype_name(t), "/", probe.width_padded),
                                [&] { return pad_weight(*init.constants[1], probe.width_padded, t); });
  const float* bias = static_cast<const float*>(
      init.prepared("projection_bias/float32", [&] { return convert_floats(*init.constants[2], DType::Float32); }));
  const bool rope = s.rope != RopeMode::None;
  std::unique_ptr<Kernel> kernel;
  cuda::dispatch_device<__half, __nv_bfloat16>(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernel = make_kernel([s, probe, rope, w, bias](KernelContext& ctx) {
      att::Params p = probe;
      p.batch = ctx.inputs[0].shape[0];
      p.x = ctx.inputs[0].data;
      p.w = w;
      p.bias = bias;
      p.y = ctx.outputs[0].data;
      p.cos = rope ? ctx.inputs[3].as<const float>() : nullptr;
      p.sin = rope ? ctx.inputs[4].as<const float>() : nullptr;
      p.scale = s.scale;
      IE_CUDA_CHECK(att::launch_projected<T>(p, cuda::stream_of(ctx), att::kProjectedThreads));
    });
  });
  return kernel;
}

std::unique_ptr<Kernel> make_attention_fused(const KernelInit& init) {
  const AttentionSetup s = resolve_attention(init.node, init.inputs);
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
  if (s.projection) return make_projected(init, s, probe, limits);
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
