// ie.FusedConv on the fused set "cuda": conv + bias + ReLU (+ max pool) in one kernel of
// layers/fused_conv/fused_conv_cuda.cuh: the unroll happens in shared memory, the product runs on Tensor Cores
// (bf16 or fp16 operands in those modes, tf32 in tf32) or as FFMA in strict fp32, and the epilogue pools, adds
// the bias, applies ReLU and writes the pooled NCHW tile. Weights are packed once per engine in the kernel's
// layout (KernelInit::prepared). Shapes outside the kernel's range are declined with the reason, so the node
// runs on the reference set (or as the nodes it replaced).
#include "engine/backend/cuda/cuda_check.h"
#include "engine/core/float_convert.h"
#include "engine/registry/op_def.h"
#include "layers/fused_conv/fused_conv_cuda.cuh"
#include "layers/fused_conv/fused_conv_setup.h"

namespace ie {
namespace {

namespace fc = ie::fused_conv;

constexpr int kMinTf32K = 64;  // products per output below which tf32 mode runs the FFMA variant

bool all_equal(const std::vector<int64_t>& v, int64_t value) {
  for (int64_t x : v)
    if (x != value) return false;
  return true;
}

// What the node's attributes alone decide: the kernel always applies ReLU; the pool, when present, is a plain
// floor-mode max pool without padding or dilation; the conv has stride 1, no dilation, one group.
bool fused_conv_cuda_supports(const Node& node) {
  const Attributes& a = node.attrs;
  if (a.get_string("activation", "") != "Relu") return false;
  if (a.get_int("group", 1) != 1 || !all_equal(a.get_ints("strides", {1, 1}), 1) ||
      !all_equal(a.get_ints("dilations", {1, 1}), 1) || a.get_string("auto_pad", "NOTSET") != "NOTSET")
    return false;
  const std::string pool = a.get_string("pool", "");
  if (pool.empty()) return true;
  const auto window = a.get_ints("pool_kernel_shape"), strides = a.get_ints("pool_strides", {1, 1});
  return pool == "MaxPool" && window.size() == 2 && window[0] == window[1] && strides.size() == 2 &&
         strides[0] == strides[1] && all_equal(a.get_ints("pool_pads", {0, 0, 0, 0}), 0) &&
         all_equal(a.get_ints("pool_dilations", {1, 1}), 1) && a.get_int("pool_ceil_mode", 0) == 0;
}

// The kernel variant of each precision mode and the element type it reads and writes.
fc::Variant variant_of(Precision p) {
  switch (p) {
    case Precision::tf32: return fc::Variant::kTf32;
    case Precision::bf16: return fc::Variant::kMmaBf16;
    case Precision::fp16: return fc::Variant::kMmaF16;
    default: return fc::Variant::kFfma;
  }
}

template <class Cfg, class T>
cudaError_t launch(fc::Variant v, const fc::ConvPoolShape& s, const void* x, const void* w, const float* bias,
                   void* y, cudaStream_t stream) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(y);
  switch (v) {
    case fc::Variant::kMmaBf16: return fc::launch_fused_conv_mma<Cfg, T, T, __nv_bfloat16>(s, in, w, bias, out, stream);
    case fc::Variant::kMmaF16: return fc::launch_fused_conv_mma<Cfg, T, T, __half>(s, in, w, bias, out, stream);
    case fc::Variant::kTf32: return fc::launch_fused_conv_tf32<Cfg, T, T>(s, in, w, bias, out, stream);
    default: return fc::launch_fused_conv_ffma<Cfg, T, T>(s, in, w, bias, out, stream);
  }
}

using LaunchFn = cudaError_t (*)(fc::Variant, const fc::ConvPoolShape&, const void*, const void*, const float*,
                                 void*, cudaStream_t);

template <class Cfg>
LaunchFn launcher_for(DType t) {
  if (t == DType::BFloat16) return launch<Cfg, __nv_bfloat16>;
  if (t == DType::Float16) return launch<Cfg, __half>;
  return launch<Cfg, float>;
}

class FusedConvKernel : public Kernel {
 public:
  FusedConvKernel(fc::ConvPoolShape shape, fc::Variant v, LaunchFn launch, const void* packed, const float* bias,
                  std::string label)
      : m_shape(shape), m_variant(v), m_launch(launch), m_packed(packed), m_bias(bias), m_label(std::move(label)) {}
  void run(KernelContext& ctx) override {
    cudaError_t err = m_launch(m_variant, m_shape, ctx.inputs[0].data, m_packed, m_bias, ctx.outputs[0].data,
                               static_cast<cudaStream_t>(ctx.stream));
    if (err != cudaSuccess)
      fail(ErrorKind::Device, m_label, ": fused convolution launch failed: ", cudaGetErrorString(err));
  }

 private:
  fc::ConvPoolShape m_shape;
  fc::Variant m_variant;
  LaunchFn m_launch;
  const void* m_packed;
  const float* m_bias;
  std::string m_label;
};

std::unique_ptr<Kernel> make_fused_conv(const KernelInit& init) {
  const TensorInfo& x = init.inputs[0];
  const TensorInfo& w = init.inputs[1];
  const bool has_bias = init.has_input(2);
  if (x.shape.size() != 4) return init.decline("2-D convolutions only");
  const DType storage = storage_dtype(init.precision);
  if (x.dtype != storage || init.outputs[0].dtype != storage)
    return init.decline("reads and writes ", dtype_name(storage), " in ", precision_name(init.precision), " mode, got ",
                        dtype_name(x.dtype));
  if (!init.constants[1] || (has_bias && !init.constants[2])) return init.decline("weights and bias must be constant");
  ConvSetup s = resolve_fused_conv(init.node, x, w, has_bias ? &init.inputs[2] : nullptr);
  const Window& c = s.conv;
  if (c.kernel[1] != c.kernel[2] || c.pad_begin[1] != c.pad_end[1] || c.pad_begin[2] != c.pad_end[2] ||
      c.pad_begin[1] != c.pad_begin[2])
    return init.decline("square kernels with one symmetric padding only");
  fc::ConvPoolShape shape{};
  shape.n = static_cast<int>(s.batch);
  shape.c = static_cast<int>(s.in_channels);
  shape.h = static_cast<int>(c.in[1]);
  shape.w = static_cast<int>(c.in[2]);
  shape.k = static_cast<int>(s.out_channels);
  shape.r = static_cast<int>(c.kernel[1]);
  shape.pad = static_cast<int>(c.pad_begin[1]);
  if (s.pool) {
    shape.pool_window = static_cast<int>(s.pool_window.kernel[1]);
    shape.pool_stride = static_cast<int>(s.pool_window.stride[1]);
  }
  if (s.batch > INT32_MAX || c.in[1] > INT32_MAX || c.in[2] > INT32_MAX) return init.decline("sizes beyond 32 bits");
  std::string why;
  if (!fc::supported(shape, &why)) return init.decline(why);
  // tf32 MMA pays only where the products are long enough to fill its k-steps (lab, batch 10000: conv1, K = 49,
  // 2.39 ms in tf32 against 2.42 in FFMA; conv2, K = 196, 1.43 against 3.76): shorter ones keep fp32's accuracy.
  fc::Variant v = variant_of(init.precision);
  if (v == fc::Variant::kTf32 && shape.c * shape.r * shape.r < kMinTf32K) v = fc::Variant::kFfma;
  // The larger tile measured faster on every shape of the kernel's lab; the smaller one fits where it does not.
  fc::TilePlan plan;
  const bool large = fc::make_plan(shape, v, fc::ConvTileLarge::kTargetPixels, fc::kDefaultSmemLimit, &plan, &why);
  if (!large && !fc::make_plan(shape, v, fc::ConvTileSmall::kTargetPixels, fc::kDefaultSmemLimit, &plan, &why))
    return init.decline(why);

  // The prepare hook: packed once per engine (the layout depends on the variant and the shape, not the batch).
  fc::ConvPoolShape per_image = shape;
  per_image.n = 1;
  const std::string key = concat("packed/", static_cast<int>(v), "/", shape.c, "x", shape.r, "x", shape.k);
  const void* packed = init.prepared(key, [&] {
    Tensor w32 = convert_floats(*init.constants[1], DType::Float32);
    Tensor bytes(DType::UInt8, {static_cast<int64_t>(fc::packed_weight_bytes(per_image, v))});
    fc::pack_weights(per_image, v, w32.data_as<float>(), bytes.data());
    return bytes;
  });
  const float* bias = nullptr;
  if (has_bias)
    bias = static_cast<const float*>(
        init.prepared("bias/float32", [&] { return convert_floats(*init.constants[2], DType::Float32); }));
  LaunchFn fn = large ? launcher_for<fc::ConvTileLarge>(storage) : launcher_for<fc::ConvTileSmall>(storage);
  return std::make_unique<FusedConvKernel>(shape, v, fn, packed, bias, init.node.label());
}

}  // namespace

IE_REGISTER_OPS(fused_conv_fused) {
  OpRegistry::get().add_kernel("ie", "FusedConv", kernel_set::kCuda, make_fused_conv, fused_conv_cuda_supports);
}

}  // namespace ie
