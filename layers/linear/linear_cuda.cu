// ie.Linear on the fused "cuda" kernel set in the fp16 and bf16 modes: the WMMA kernel of linear_fused.cuh with
// the bias, the activation and the residual in its epilogue, so a product stays in the storage type instead of
// running in float32 between Casts on the reference set. Strict fp32 and tf32 products decline to the reference
// set's cuBLASLt; so do a W or bias that is not constant, and a K whose W block does not fit in shared memory.
#include "engine/backend/cuda/cuda_check.h"
#include "engine/core/float_convert.h"
#include "engine/core/precision.h"
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/linear/linear_fused.cuh"
#include "layers/linear/linear_setup.h"

namespace ie {
namespace {

// W as the kernel reads it: [kp, np] row-major (K down, N across), zero-padded, in the storage type.
Tensor pack_weights(const Tensor& w, const LinearSetup& s, DType storage) {
  const Tensor w32 = convert_floats(w, DType::Float32);
  const float* src = w32.data_as<float>();
  const int kp = lin::padded_k(static_cast<int>(s.k)), np = lin::padded_n(static_cast<int>(s.n));
  Tensor packed(DType::Float32, {kp, np});
  float* dst = packed.data_as<float>();
  std::fill(dst, dst + packed.numel(), 0.f);
  for (int64_t k = 0; k < s.k; ++k)
    for (int64_t n = 0; n < s.n; ++n) dst[k * np + n] = s.trans_w ? src[n * s.k + k] : src[k * s.n + n];
  return convert_floats(packed, storage);
}

std::unique_ptr<Kernel> make_linear_fused(const KernelInit& init) {
  const DType t = init.inputs[0].dtype;
  if (t != DType::Float16 && t != DType::BFloat16)
    return init.decline("float32 products (strict fp32 and tf32 modes) run on the reference set's cuBLASLt");
  const bool has_bias = init.has_input(2);
  if (!init.constants[1] || (has_bias && !init.constants[2])) return init.decline("W and bias must be constant");
  const LinearSetup s =
      resolve_linear(init.node, init.inputs[0].shape, init.inputs[1].shape, has_bias ? &init.inputs[2].shape : nullptr,
                     init.has_input(3) ? &init.inputs[3].shape : nullptr);
  if (s.residual && init.inputs[3].dtype != t) return init.decline("residual of another type than A");
  if (s.k > (1 << 20) || s.n > (1 << 20)) return init.decline("K or N beyond 2^20");
  dev::DeviceLimits limits;
  if (dev::device_limits(&limits) != cudaSuccess) return init.decline("no CUDA device to plan for");
  const int optin = limits.smem_optin;
  const int k = static_cast<int>(s.k), n = static_cast<int>(s.n);
  const size_t smem = t == DType::BFloat16 ? lin::smem_bytes<__nv_bfloat16>(k, n) : lin::smem_bytes<__half>(k, n);
  if (smem > static_cast<size_t>(optin))
    return init.decline("K = ", s.k, ": W's column block (", smem, " bytes) exceeds shared memory (", optin, ")");
  const void* w = init.prepared(concat("wmma/", dtype_name(t), "/", k, "x", n),
                                [&] { return pack_weights(*init.constants[1], s, t); });
  const float* bias = nullptr;
  if (has_bias)
    bias = static_cast<const float*>(
        init.prepared("bias/float32", [&] { return convert_floats(*init.constants[2], DType::Float32); }));
  const dev::Act act = cuda::device_activation(s.activation);
  std::unique_ptr<Kernel> kernel;
  cuda::dispatch_device<__half, __nv_bfloat16>(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernel = make_kernel([s, k, n, w, bias, act](KernelContext& ctx) {
      lin::Params p;
      p.a = ctx.inputs[0].data;
      p.w = w;
      p.bias = bias;
      p.residual = s.residual ? ctx.inputs[3].data : nullptr;
      p.y = ctx.outputs[0].data;
      p.rows = s.rows;
      p.k = k;
      p.n = n;
      p.kp = lin::padded_k(k);
      p.np = lin::padded_n(n);
      p.act = act;
      IE_CUDA_CHECK(lin::launch<T>(p, cuda::stream_of(ctx)));
    });
  });
  return kernel;
}

}  // namespace

IE_REGISTER_OPS(linear_fused) { OpRegistry::get().add_kernel("ie", "Linear", kernel_set::kCuda, make_linear_fused); }

}  // namespace ie
