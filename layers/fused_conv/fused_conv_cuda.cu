// ie.FusedConv on the fused set "cuda": conv + bias + ReLU (+ max pool) in one kernel of
// layers/fused_conv/fused_conv_cuda.cuh: the unroll happens in shared memory, the product runs on Tensor Cores
// (bf16 or fp16 operands in those modes, tf32 in tf32) or as FFMA in strict fp32, and the epilogue pools, adds
// the bias, applies ReLU and writes the pooled NCHW tile. Weights are packed once per engine in the kernel's
// layout (KernelInit::prepared); the tile configuration is timed once per device and shape and kept in the
// tuning cache (IE_TUNE=off: the heuristic's pick). Shapes outside the kernel's range are declined with the
// reason, so the node runs on the reference set (or as the nodes it replaced).
#include <algorithm>
#include <mutex>
#include <optional>

#include "engine/backend/backend.h"
#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_tuning.h"
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
    case Precision::tf32:
      return fc::Variant::kTf32;
    case Precision::bf16:
      return fc::Variant::kMmaBf16;
    case Precision::fp16:
      return fc::Variant::kMmaF16;
    default:
      return fc::Variant::kFfma;
  }
}

template <class Cfg, class T>
cudaError_t launch(fc::Variant v, const fc::ConvPoolShape& s, const void* x, const void* w, const float* bias, void* y,
                   cudaStream_t stream) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(y);
  switch (v) {
    case fc::Variant::kMmaBf16:
      return fc::launch_fused_conv_mma<Cfg, T, T, __nv_bfloat16>(s, in, w, bias, out, stream);
    case fc::Variant::kMmaF16:
      return fc::launch_fused_conv_mma<Cfg, T, T, __half>(s, in, w, bias, out, stream);
    case fc::Variant::kTf32:
      return fc::launch_fused_conv_tf32<Cfg, T, T>(s, in, w, bias, out, stream);
    default:
      return fc::launch_fused_conv_ffma<Cfg, T, T>(s, in, w, bias, out, stream);
  }
}

using LaunchFn = cudaError_t (*)(fc::Variant, const fc::ConvPoolShape&, const void*, const void*, const float*, void*,
                                 cudaStream_t);

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

struct Candidate {
  const char* name;
  LaunchFn launch;
};

// Median milliseconds of `c` on the session's stream over fresh inputs in [0, 1) (never zeros: they run faster).
double time_config(const Candidate& c, const fc::ConvPoolShape& s, fc::Variant v, DType storage, const void* packed,
                   const float* bias, Backend& backend) {
  const int64_t in_count = int64_t(s.n) * s.c * s.h * s.w;
  const int64_t out_count = int64_t(s.n) * s.k * fc::pooled_h(s) * fc::pooled_w(s);
  Tensor x(DType::Float32, {in_count});
  uint32_t state = 12345;
  for (int64_t i = 0; i < in_count; ++i) {
    state = state * 1664525u + 1013904223u;
    x.data_as<float>()[i] = static_cast<float>(state >> 8) / 16777216.f;
  }
  const Tensor xs = convert_floats(x, storage);
  void* dx = backend.allocate(xs.nbytes());
  void* dy = backend.allocate(static_cast<size_t>(out_count) * dtype_size(storage));
  backend.copy_in(dx, xs.data(), xs.nbytes());
  auto stream = static_cast<cudaStream_t>(backend.stream());
  cudaEvent_t start = nullptr, stop = nullptr;
  IE_CUDA_CHECK(cudaEventCreate(&start));
  IE_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int run = 0; run < 3 + 9; ++run) {
    IE_CUDA_CHECK(cudaEventRecord(start, stream));
    IE_CUDA_CHECK(c.launch(v, s, dx, packed, bias, dy, stream));
    IE_CUDA_CHECK(cudaEventRecord(stop, stream));
    IE_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    IE_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    if (run >= 3) ms.push_back(t);  // the first runs warm up
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  backend.deallocate(dx);
  backend.deallocate(dy);
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

// The tile configuration: IE_TUNE=off takes the heuristic's first; otherwise the device's tuning cache answers, or
// every candidate is timed once (search: always) and the winner stored.
LaunchFn choose_config(const KernelInit& init, const fc::ConvPoolShape& s, fc::Variant v, DType storage,
                       const std::vector<Candidate>& candidates, const void* packed, const float* bias) {
  if (candidates.size() == 1 || tune_mode() == TuneMode::Off || !init.backend) return candidates.front().launch;
  static std::mutex mutex;  // one timing at a time: concurrent ones on one GPU disturb each other
  std::lock_guard<std::mutex> lock(mutex);
  TuningCache& cache = tuning_cache_for(cuda::tuning_device_key(cuda::state_of(init.backend_state)));
  const std::string kernel = concat("fused_conv_", static_cast<int>(v));
  const std::string shape = concat(s.n, ",", s.c, ",", s.h, ",", s.w, "/", s.k, ",", s.r, "/", s.pad, "/",
                                   s.pool_window, ",", s.pool_stride, "/", dtype_name(storage));
  const std::string mode = precision_name(init.precision);
  if (std::optional<TuneRecord> hit = cache.lookup(kernel, shape, mode))
    for (const Candidate& c : candidates)
      if (hit->text("config") == std::string(c.name)) return c.launch;
  const Candidate* best = nullptr;
  double best_ms = 0;
  TuneRecord record;
  for (const Candidate& c : candidates) {
    const double ms = time_config(c, s, v, storage, packed, bias, *init.backend);
    record.set(std::string("ms_") + c.name, ms);
    if (!best || ms < best_ms) best = &c, best_ms = ms;
  }
  record.set("config", best->name).set("time_ms", best_ms);
  cache.store(kernel, shape, mode, record);
  return best->launch;
}

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
  // The tile configurations that fit this shape, in the heuristic's order: the larger tile measured faster on
  // every shape of the kernel's lab.
  std::vector<Candidate> candidates;
  fc::TilePlan plan;
  if (fc::make_plan(shape, v, fc::ConvTileLarge::kTargetPixels, fc::kDefaultSmemLimit, &plan, &why))
    candidates.push_back({fc::ConvTileLarge::kName, launcher_for<fc::ConvTileLarge>(storage)});
  if (fc::make_plan(shape, v, fc::ConvTileSmall::kTargetPixels, fc::kDefaultSmemLimit, &plan, &why))
    candidates.push_back({fc::ConvTileSmall::kName, launcher_for<fc::ConvTileSmall>(storage)});
  if (candidates.empty()) return init.decline(why);

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
  const LaunchFn fn = choose_config(init, shape, v, storage, candidates, packed, bias);
  return std::make_unique<FusedConvKernel>(shape, v, fn, packed, bias, init.node.label());
}

}  // namespace

IE_REGISTER_OPS(fused_conv_fused) {
  OpRegistry::get().add_kernel("ie", "FusedConv", kernel_set::kCuda, make_fused_conv, fused_conv_cuda_supports);
}

}  // namespace ie
