// ie.Attention on the fused "cuda" kernel set: the kernel of attention_fused.cuh in float32, float16 and bfloat16
// storage (RoPE, scores, softmax and sums in float), and with its projections (projection = 1) the kernel of
// attention_projected.cuh in float16 and bfloat16, or in float32 one cuBLASLt product for q | k | v ahead of the
// attention kernel. Declines, with the reason, the shapes they do not take (odd head dims, heads whose q, k and v
// exceed shared memory, sequences beyond a CTA); the node then runs as the nodes it replaced.
#include <memory>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_state.h"
#include "engine/core/float_convert.h"
#include "engine/registry/op_def.h"
#include "layers/attention/attention_fused.cuh"
#include "layers/attention/attention_projected.cuh"
#include "layers/attention/attention_setup.h"
#include "layers/common/cublaslt_gemm.h"
#include "layers/common/cuda_util.cuh"
#include "layers/linear/linear_split_launch.h"

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

// The launch's fields known only at run time: the batch, the output, the RoPE tables (inputs 3 and 4) and the scale.
att::Params at_run(att::Params p, KernelContext& ctx, bool rope, float scale) {
  p.batch = ctx.inputs[0].shape[0];
  p.y = ctx.outputs[0].data;
  p.cos = rope ? ctx.inputs[3].as<const float>() : nullptr;
  p.sin = rope ? ctx.inputs[4].as<const float>() : nullptr;
  p.scale = scale;
  return p;
}

// Float32 projections (fp32 and tf32 modes): q | k | v = x W + bias as one cuBLASLt product into the workspace
// ([rows, 3E], the bias in its epilogue, TF32 in tf32 mode like every product there), then the attention kernel
// reads q, k and v 3E apart. Against the three Linear products it replaces, x is read once and two launches go.
class ProjectedFloatKernel : public Kernel {
 public:
  ProjectedFloatKernel(const KernelInit& init, const AttentionSetup& s, const att::Params& probe)
      : m_probe(probe),
        m_rope(s.rope != RopeMode::None),
        m_scale(s.scale),
        m_qkv_bytes(static_cast<size_t>(s.batch * s.seq * 3 * s.embed) * sizeof(float)),
        m_gemm(cuda::state_of(init.backend_state).cublaslt(), cuda::LtShape{s.batch * s.seq, 3 * s.embed, s.k},
               cuda::LtEpilogue::Bias, cuda::state_of(init.backend_state).tf32(), init.node.label()) {}

  size_t workspace_bytes() const override { return gemm_offset() + m_gemm.workspace_bytes(); }

  void run(KernelContext& ctx) override {
    auto* qkv = static_cast<float*>(ctx.workspace);
    m_gemm.run(ctx.inputs[0].as<const float>(), ctx.inputs[1].as<const float>(), nullptr, qkv,
               ctx.inputs[2].as<const float>(), 1.f, 0.f, static_cast<char*>(ctx.workspace) + gemm_offset(),
               ctx.stream);
    att::Params p = at_run(m_probe, ctx, m_rope, m_scale);
    p.q = qkv;
    p.k = qkv + p.heads * p.dim;
    p.v = qkv + 2 * p.heads * p.dim;
    IE_CUDA_CHECK(att::launch<float>(p, cuda::stream_of(ctx)));
  }

 private:
  size_t gemm_offset() const { return (m_qkv_bytes + 255) / 256 * 256; }

  att::Params m_probe;
  bool m_rope;
  float m_scale;
  size_t m_qkv_bytes;
  cuda::LtGemm m_gemm;
};

// Strict fp32 from this many rows: the three products as split-operand Linears (linear_split.cuh) and the attention
// kernel apart were faster than one cuBLASLt product and the kernel (H200, tools/results/h200/linear_split/call_h,
// the SSA's fp32 plan apart / joined, ms: batch 4096 0.302 / 0.315, 65536 3.23 / 3.68; batch 512 0.123 / 0.111).
constexpr int64_t kSplitApartMinRows = 32768;

std::unique_ptr<Kernel> make_projected_float(const KernelInit& init, const AttentionSetup& s, att::Params probe,
                                             const dev::DeviceLimits& limits) {
  const int64_t rows = s.batch * s.seq;
  if (init.precision == Precision::fp32 && rows >= kSplitApartMinRows && !init.node.replaced.empty() &&
      lin::split::fp32_linear_takes(rows, s.k, s.embed, dev::Act::None))  // (a node the rule made: it can unfuse)
    return init.decline("fp32 from ", kSplitApartMinRows,
                        " rows: the three products as split-operand Linears and the attention kernel apart are "
                        "faster (see kSplitApartMinRows)");
  // The planner widens a node the 16-bit kernels decline to float32 between Casts when a kernel takes it so; here
  // the three products in 16 bits and the attention kernel (the node unfused) read and write half the bytes.
  if (storage_dtype(init.precision) != DType::Float32)
    return init.decline("float32 projections in the ", precision_name(init.precision),
                        " mode (the node runs unfused, its products in ", precision_name(init.precision), ")");
  for (const TensorInfo& t : init.inputs)
    if (t.dtype != DType::Undefined && t.dtype != DType::Float32)
      return init.decline("a float32 x with ", dtype_name(t.dtype), " parameters");
  if (s.k == 0) return init.decline("x rows of width 0");  // cuBLASLt rejects K = 0
  if (3 * s.embed > INT32_MAX) return init.decline("q | k | v rows beyond 2^31 - 1 elements");
  probe.ld = static_cast<int>(3 * s.embed);
  att::Layout layout;
  const char* why = nullptr;
  if (!att::plan_layout(probe, 4, att::kDefaultThreads, att::kDefaultSmem, static_cast<size_t>(limits.smem_optin),
                        &layout, &why))
    return init.decline(why);
  if (s.batch * s.seq == 0) return make_kernel([](KernelContext&) {});
  return std::make_unique<ProjectedFloatKernel>(init, s, probe);
}

std::unique_ptr<Kernel> make_projected(const KernelInit& init, const AttentionSetup& s, att::Params probe,
                                       const dev::DeviceLimits& limits) {
  const DType t = init.inputs[0].dtype;
  if (t == DType::Float32) return make_projected_float(init, s, probe, limits);
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
      att::Params p = at_run(probe, ctx, rope, s.scale);
      p.x = ctx.inputs[0].data;
      p.w = w;
      p.bias = bias;
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
      att::Params p = at_run(probe, ctx, rope, s.scale);
      p.q = ctx.inputs[0].data;
      p.k = ctx.inputs[1].data;
      p.v = ctx.inputs[2].data;
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
