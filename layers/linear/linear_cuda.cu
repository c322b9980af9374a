// ie.Linear on the fused "cuda" kernel set: in the fp16 and bf16 modes the WMMA kernel of linear_fused.cuh with
// the bias, the activation and the residual in its epilogue, so a product stays in the storage type instead of
// running in float32 between Casts on the reference set; in strict fp32 the split-operand Tensor Core kernel of
// linear_split.cuh (float32's accuracy from fp16 halves, at the copy bandwidth) for the shapes the build holds,
// else the FFMA kernel of linear_ffma.cuh with the same epilogue (cuBLASLt runs an activation as a second pass).
// tf32 products decline to the reference set's cuBLASLt; so do a W or bias that is not constant, a K whose W block
// does not fit in shared memory (16-bit), and K or N not a multiple of 4 (fp32).
#include <stdexcept>
#include <string>

#include "engine/backend/cuda/cuda_check.h"
#include "engine/core/float_convert.h"
#include "engine/core/precision.h"
#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/linear/linear_ffma.cuh"
#include "layers/linear/linear_fused.cuh"
#include "layers/linear/linear_setup.h"
#include "layers/linear/linear_split_launch.h"

namespace ie {
namespace {

// W as the kernel reads it: [kp, np] row-major (K down, N across), zero-padded, in the storage type.
Tensor pack_weights(const Tensor& w, const LinearSetup& s, DType storage, int kp, int np) {
  const Tensor w32 = convert_floats(w, DType::Float32);
  const float* src = w32.data_as<float>();
  Tensor packed(DType::Float32, {kp, np});
  float* dst = packed.data_as<float>();
  std::fill(dst, dst + packed.numel(), 0.f);
  for (int64_t k = 0; k < s.k; ++k)
    for (int64_t n = 0; n < s.n; ++n) dst[k * np + n] = s.trans_w ? src[n * s.k + k] : src[k * s.n + n];
  return convert_floats(packed, storage);
}

const float* prepared_bias(const KernelInit& init) {
  if (!init.has_input(2)) return nullptr;
  return static_cast<const float*>(
      init.prepared("bias/float32", [&] { return convert_floats(*init.constants[2], DType::Float32); }));
}

// Strict fp32 on the FFMA kernel where it was measured faster than cuBLASLt (H200, tools/results/h200/linear_ffma/):
// an activation cuBLASLt runs as a second pass (GELU, Tanh, Sigmoid), from 32768 rows. The SSA's fc1 + GELU, FFMA
// against cuBLASLt and its pass, per-op profile: 1,280 rows 0.0123 / 0.0087 ms, 5,120 rows 0.0128 / 0.0176, 40,960
// 0.032 / 0.047, 655,360 0.415 / 0.674 (call_d, call_d_small, call_a); but in the whole plan (CUDA graph) the FFMA
// fc1 lost at 5,120 rows (batch 512: 0.1277 / 0.1252 ms) and won at 40,960 (batch 4096: 0.384 / 0.411) and
// 655,360 (65536: 4.514 / 4.959; call_e). Where cuBLASLt fuses the epilogue it was as fast or faster
// (with every product on FFMA the SSA's fp32 plan took 0.163 / 0.226 / 0.436 ms at batch 1 / 512 / 4096 against
// 0.076 / 0.125 / 0.410: the latent products, K = 640 or N = 32, and few rows). IE_LINEAR_FP32=ffma takes the
// FFMA kernel for every shape it supports (tests, comparisons), =cublas for none.
constexpr int64_t kFfmaMinRows = 32768;

std::unique_ptr<Kernel> make_linear_ffma(const KernelInit& init, const LinearSetup& s, const std::string& choice) {
  if (choice == "cublas") return init.decline("IE_LINEAR_FP32=cublas chooses cuBLASLt");
  if (!lin::ffma::supports(s.k, s.n))
    return init.decline("fp32: K = ", s.k, " and N = ", s.n, " (the FFMA kernel takes multiples of 4)");
  const bool second_pass = s.activation != Activation::None && s.activation != Activation::Relu;
  if (choice != "ffma" && !second_pass)
    return init.decline(
        "fp32: cuBLASLt fuses this epilogue and was as fast (the FFMA kernel takes GELU, Tanh and "
        "Sigmoid products)");
  if (choice != "ffma" && s.rows < kFfmaMinRows)
    return init.decline("fp32: ", s.rows, " rows: cuBLASLt was faster below ", kFfmaMinRows, " rows");
  const int k = static_cast<int>(s.k), n = static_cast<int>(s.n);
  const int kp = lin::ffma::padded_k(k), np = lin::ffma::padded_n(n);
  const auto* w = static_cast<const float*>(init.prepared(
      concat("ffma/", kp, "x", np), [&] { return pack_weights(*init.constants[1], s, DType::Float32, kp, np); }));
  const float* bias = prepared_bias(init);
  const dev::Act act = cuda::device_activation(s.activation);
  const std::string node = init.node.label();
  return make_kernel([s, k, n, kp, np, w, bias, act, node](KernelContext& ctx) {
    lin::ffma::Params p;
    p.a = static_cast<const float*>(ctx.inputs[0].data);
    p.w = w;
    p.bias = bias;
    p.residual = s.residual ? static_cast<const float*>(ctx.inputs[3].data) : nullptr;
    p.y = static_cast<float*>(ctx.outputs[0].data);
    p.rows = s.rows;
    p.k = k, p.n = n, p.kp = kp, p.np = np;
    p.act = act;
    if (!lin::ffma::aligned(p))  // the arena aligns every tensor to 256 bytes
      throw std::runtime_error(node + ": the fp32 Linear kernel's tensors are not 16-byte aligned");
    IE_CUDA_CHECK(lin::ffma::launch(p, cuda::stream_of(ctx)));
  });
}

std::unique_ptr<Kernel> make_linear_split(const KernelInit& init, const LinearSetup& s) {
  dev::DeviceLimits limits;
  if (dev::device_limits(&limits) != cudaSuccess) return init.decline("no CUDA device to plan for");
  const int k = static_cast<int>(s.k), n = static_cast<int>(s.n), sms = limits.sms;
  const Tensor* w0 = init.constants[1];
  const bool trans = s.trans_w;
  lin::split::SplitWeights packed;
  auto pack = [&] {  // the blob and the column scales come from one packing
    if (packed.blob.empty()) {
      const Tensor w32 = convert_floats(*w0, DType::Float32);
      const float* src = w32.data_as<float>();
      packed = lin::split::pack_split_weights(
          [&](int i, int j) {
            return trans ? src[static_cast<int64_t>(j) * k + i] : src[static_cast<int64_t>(i) * n + j];
          },
          k, n);
    }
  };
  const auto* w = static_cast<const uint4*>(init.prepared(concat("split/", k, "x", n), [&] {
    pack();
    Tensor t(DType::UInt16, {static_cast<int64_t>(packed.blob.size())});
    std::copy(packed.blob.begin(), packed.blob.end(), t.data_as<uint16_t>());
    return t;
  }));
  const auto* col_scale = static_cast<const float*>(init.prepared(concat("split_scale/", n), [&] {
    pack();
    Tensor t(DType::Float32, {n});
    std::copy(packed.col_scale.begin(), packed.col_scale.end(), t.data_as<float>());
    return t;
  }));
  const float* bias = prepared_bias(init);
  const dev::Act act = cuda::device_activation(s.activation);
  const std::string node = init.node.label();
  return make_kernel([s, k, n, sms, w, col_scale, bias, act, node](KernelContext& ctx) {
    lin::split::Params p;
    p.a = static_cast<const float*>(ctx.inputs[0].data);
    p.w = w;
    p.col_scale = col_scale;
    p.bias = bias;
    p.residual = s.residual ? static_cast<const float*>(ctx.inputs[3].data) : nullptr;
    p.y = static_cast<float*>(ctx.outputs[0].data);
    p.rows = s.rows;
    p.k = k, p.n = n;
    p.act = act;
    if (!cuda::aligned_to(p.a, 8) || !cuda::aligned_to(p.y, 8) || (p.residual && !cuda::aligned_to(p.residual, 8)))
      throw std::runtime_error(node + ": the fp32 split Linear's tensors are not 8-byte aligned");  // the arena: 256
    IE_CUDA_CHECK(lin::split::launch_compiled(p, sms, cuda::stream_of(ctx)));
  });
}

// Strict fp32: the split kernel where lin::split::fp32_linear_takes the product, else the FFMA kernel's rules
// (IE_LINEAR_FP32: nosplit, the FFMA kernel's rules alone; ffma, the FFMA kernel for every shape it supports;
// cublas, neither).
std::unique_ptr<Kernel> make_linear_fp32(const KernelInit& init, const LinearSetup& s) {
  if (lin::split::fp32_linear_takes(s.rows, s.k, s.n, cuda::device_activation(s.activation)))
    return make_linear_split(init, s);
  const std::string choice = lin::split::fp32_linear_choice();
  return make_linear_ffma(init, s, choice == "nosplit" ? "" : choice);
}

std::unique_ptr<Kernel> make_linear_fused(const KernelInit& init) {
  const DType t = init.inputs[0].dtype;
  if (t == DType::Float32 && init.precision != Precision::fp32)
    return init.decline("tf32 products run on the reference set's cuBLASLt");
  if (t != DType::Float16 && t != DType::BFloat16 && t != DType::Float32)
    return init.decline("products in ", dtype_name(t), " run on the reference set");
  const bool has_bias = init.has_input(2);
  if (!init.constants[1] || (has_bias && !init.constants[2])) return init.decline("W and bias must be constant");
  const LinearSetup s =
      resolve_linear(init.node, init.inputs[0].shape, init.inputs[1].shape, has_bias ? &init.inputs[2].shape : nullptr,
                     init.has_input(3) ? &init.inputs[3].shape : nullptr);
  if (s.residual && init.inputs[3].dtype != t) return init.decline("residual of another type than A");
  if (s.k > (1 << 20) || s.n > (1 << 20)) return init.decline("K or N beyond 2^20");
  if (t == DType::Float32) return make_linear_fp32(init, s);
  dev::DeviceLimits limits;
  if (dev::device_limits(&limits) != cudaSuccess) return init.decline("no CUDA device to plan for");
  const int optin = limits.smem_optin;
  const int k = static_cast<int>(s.k), n = static_cast<int>(s.n);
  const size_t smem = t == DType::BFloat16 ? lin::smem_bytes<__nv_bfloat16>(k, n) : lin::smem_bytes<__half>(k, n);
  if (smem > static_cast<size_t>(optin))
    return init.decline("K = ", s.k, ": W's column block (", smem, " bytes) exceeds shared memory (", optin, ")");
  const void* w = init.prepared(concat("wmma/", dtype_name(t), "/", k, "x", n), [&] {
    return pack_weights(*init.constants[1], s, t, lin::padded_k(k), lin::padded_n(n));
  });
  const float* bias = prepared_bias(init);
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
