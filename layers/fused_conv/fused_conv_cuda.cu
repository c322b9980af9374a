// ie.FusedConv on the fused set "cuda": conv + bias + ReLU (+ max pool) in one kernel: the unroll happens in
// shared memory, the product runs on Tensor Cores (bf16 or fp16 operands in those modes, tf32 in tf32) or as
// FFMA in strict fp32, and the epilogue pools, adds the bias, applies ReLU and writes the pooled NCHW tile.
// Kernel families: the stacked kernel (fused_conv_stacked.cuh: weights on the MMA's M side, for up to 16 output
// channels) and its shared-rows plans, the pool-on-M kernel (fused_conv_poolm.cuh: up to 4 channels with a 2x2 pool),
// two warpgroup-MMA kernels for 16-bit second convolutions (fused_conv_wgmma_pixels.cuh: pixels on M, the weights as
// wgmma's B; fused_conv_wgmma.cuh: weights on M) and the pixels-on-M kernel (fused_conv_cuda.cuh: every supported
// shape, and FFMA); all but the last have their candidate lists in modules of their own (fused_conv_*_cuda.cu), so
// that a model loads the code of the families it runs only. Their tile configurations are the candidates; the winner is
// timed once per device and shape and kept in the tuning cache (IE_TUNE=off: the heuristic's pick;
// IE_FUSED_CONV_CONFIG=<name> forces one, for tests and labs). Weights are packed once per engine in each family's
// layout (KernelInit::prepared). Shapes outside both ranges are declined with the reason, so the node runs on the
// reference set (or as the nodes it replaced). In fp16/bf16 the node may read a float32 input (the graph's, its Cast
// folded in by the rule conv_input_cast): the staging rounds it to the operand type, so a first convolution reads
// 4-byte pixels once instead of a Cast writing and the conv reading 2-byte copies.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>

#include "engine/backend/backend.h"
#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_state.h"
#include "engine/backend/cuda/cuda_tuning.h"
#include "engine/core/float_convert.h"
#include "engine/registry/op_def.h"
#include "layers/common/float_device.cuh"
#include "layers/fused_conv/fused_conv_columns.cuh"
#include "layers/fused_conv/fused_conv_cuda.cuh"
#include "layers/fused_conv/fused_conv_poolm.cuh"
#include "layers/fused_conv/fused_conv_select.h"
#include "layers/fused_conv/fused_conv_setup.h"
#include "layers/fused_conv/fused_conv_stacked.cuh"
#include "layers/fused_conv/fused_conv_wgmma.cuh"
#include "layers/fused_conv/fused_conv_wgmma_pixels.cuh"

namespace ie {
namespace {

namespace fc = ie::fused_conv;
using fused_conv_select::Candidate;
using fused_conv_select::RunFn;

constexpr int kMinTf32K = 64;  // products per output below which tf32 mode runs FFMA or split bf16 products

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

template <class Cfg, class TIn, class T>
cudaError_t launch(fc::Variant v, const fc::ConvPoolShape& s, const void* x, const void* w, const float* bias, void* y,
                   cudaStream_t stream) {
  const TIn* in = static_cast<const TIn*>(x);
  T* out = static_cast<T*>(y);
  switch (v) {
    case fc::Variant::kMmaBf16:
      return fc::launch_fused_conv_mma<Cfg, TIn, T, __nv_bfloat16>(s, in, w, bias, out, stream);
    case fc::Variant::kMmaF16:
      return fc::launch_fused_conv_mma<Cfg, TIn, T, __half>(s, in, w, bias, out, stream);
    case fc::Variant::kTf32:
      return fc::launch_fused_conv_tf32<Cfg, TIn, T>(s, in, w, bias, out, stream);
    default:
      return fc::launch_fused_conv_ffma<Cfg, TIn, T>(s, in, w, bias, out, stream);
  }
}

using LaunchFn = cudaError_t (*)(fc::Variant, const fc::ConvPoolShape&, const void*, const void*, const float*, void*,
                                 cudaStream_t);

// The FFMA kernel alone (configurations that exist for strict fp32 only), float32 in and out.
template <class Cfg>
cudaError_t launch_ffma(fc::Variant, const fc::ConvPoolShape& s, const void* x, const void* w, const float* bias,
                        void* y, cudaStream_t stream) {
  return fc::launch_fused_conv_ffma<Cfg, float, float>(s, static_cast<const float*>(x), w, bias, static_cast<float*>(y),
                                                       stream);
}

// The column kernel (strict fp32), float32 in and out.
template <class Cfg>
cudaError_t launch_columns(fc::Variant, const fc::ConvPoolShape& s, const void* x, const void* w, const float* bias,
                           void* y, cudaStream_t stream) {
  return fc::launch_fused_conv_columns<Cfg, float, float>(s, static_cast<const float*>(x), w, bias,
                                                          static_cast<float*>(y), stream);
}

// The launcher for storage type `t`; `float_in`: the input is float32 (the graph's input, its Cast folded in).
template <class Cfg>
LaunchFn launcher_for(DType t, bool float_in) {
  if (t == DType::BFloat16)
    return float_in ? launch<Cfg, float, __nv_bfloat16> : launch<Cfg, __nv_bfloat16, __nv_bfloat16>;
  if (t == DType::Float16) return float_in ? launch<Cfg, float, __half> : launch<Cfg, __half, __half>;
  return launch<Cfg, float, float>;
}

// Values in [0, 1) (never zeros: they run faster) from a hash of the index, made on the device: a host loop over
// the input per candidate (74 M values for conv1 at batch 10000) made a new batch size's first plan take 13 s.
template <class T>
__global__ void fill_timing_input(T* x, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u + static_cast<uint32_t>(i >> 32) + 12345u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    x[i] = dev::from_float<T>(static_cast<float>(h >> 8) / 16777216.f);
  }
}

// The tile configuration: IE_TUNE=off takes the heuristic's first; otherwise the device's tuning cache answers, or
// every candidate is timed once (search: always) and the winner stored.
const Candidate& choose_config(const KernelInit& init, const fc::ConvPoolShape& s, fc::Variant v, DType in_type,
                               DType storage, const std::vector<Candidate>& candidates) {
  if (candidates.size() == 1 || tune_mode() == TuneMode::Off || !init.backend) return candidates.front();
  std::lock_guard<std::mutex> lock(fused_conv_select::timing_mutex());
  TuningCache& cache = tuning_cache_for(cuda::tuning_device_key(cuda::state_of(init.backend_state)));
  const std::string kernel = concat("fused_conv_", static_cast<int>(v));
  const std::string shape =
      concat(s.n, ",", s.c, ",", s.h, ",", s.w, "/", s.k, ",", s.r, "/", s.pad, "/", s.pool_window, ",", s.pool_stride,
             "/", dtype_name(storage), in_type == storage ? "" : concat("/in:", dtype_name(in_type)));
  const std::string mode = precision_name(init.precision);
  if (std::optional<TuneRecord> hit = cache.lookup(kernel, shape, mode))
    for (const Candidate& c : candidates)
      if (hit->text("config") == c.name) return c;
  const int64_t in_count = int64_t(s.n) * s.c * s.h * s.w;
  const int64_t out_count = int64_t(s.n) * s.k * fc::pooled_h(s) * fc::pooled_w(s);
  fused_conv_select::DeviceScratch scratch(*init.backend);
  void* x = scratch.get(static_cast<size_t>(in_count) * dtype_size(in_type));
  void* y = scratch.get(static_cast<size_t>(out_count) * dtype_size(storage));
  auto stream = static_cast<cudaStream_t>(init.backend->stream());
  fused_conv_select::fill_timing_values(in_type, x, in_count, stream);
  TuneRecord record;
  double best_ms = 0;
  const Candidate& best = fused_conv_select::fastest(candidates, x, y, stream, &record, &best_ms);
  record.set("config", best.name).set("time_ms", best_ms);
  cache.store(kernel, shape, mode, record);
  return best;
}

}  // namespace

namespace fused_conv_select {

std::mutex& timing_mutex() {
  static std::mutex mutex;  // one timing at a time: concurrent ones on one GPU disturb each other
  return mutex;
}

void RunKernel::run(KernelContext& ctx) {
  cudaError_t err = m_run(ctx.inputs[0].data, ctx.outputs[0].data, static_cast<cudaStream_t>(ctx.stream));
  if (err != cudaSuccess) fail(ErrorKind::Device, m_label, ": ", m_what, " launch failed: ", cudaGetErrorString(err));
}

const Candidate& fastest(const std::vector<Candidate>& candidates, const void* x, void* y, cudaStream_t stream,
                         TuneRecord* record, double* best_ms) {
  const Candidate* best = nullptr;
  for (const Candidate& c : candidates) {
    const double ms = time_candidate(c, x, y, stream);
    record->set("ms_" + c.name, ms);
    if (!best || ms < *best_ms) best = &c, *best_ms = ms;
  }
  return *best;
}

double time_candidate(const Candidate& c, const void* x, void* y, cudaStream_t stream) {
  cudaEvent_t start = nullptr, stop = nullptr;
  IE_CUDA_CHECK(cudaEventCreate(&start));
  IE_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int run = 0; run < 3 + 9; ++run) {
    IE_CUDA_CHECK(cudaEventRecord(start, stream));
    IE_CUDA_CHECK(c.run(x, y, stream));
    IE_CUDA_CHECK(cudaEventRecord(stop, stream));
    IE_CUDA_CHECK(cudaEventSynchronize(stop));
    float t = 0;
    IE_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
    if (run >= 3) ms.push_back(t);  // the first runs warm up
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

void fill_timing_values(DType t, void* x, int64_t n, cudaStream_t stream) {
  const unsigned blocks = cuda::blocks_for(n, 256);
  if (t == DType::BFloat16)
    fill_timing_input<<<blocks, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(x), n);
  else if (t == DType::Float16)
    fill_timing_input<<<blocks, 256, 0, stream>>>(static_cast<__half*>(x), n);
  else
    fill_timing_input<<<blocks, 256, 0, stream>>>(static_cast<float*>(x), n);
  IE_CUDA_CHECK_LAUNCH();
}

bool conv_pool_shape(const Node& node, const TensorInfo& x, const TensorInfo& w, const TensorInfo* b,
                     fc::ConvPoolShape* out, std::string* why) {
  ConvSetup s = resolve_fused_conv(node, x, w, b);
  const Window& c = s.conv;
  if (c.kernel[1] != c.kernel[2] || c.pad_begin[1] != c.pad_end[1] || c.pad_begin[2] != c.pad_end[2] ||
      c.pad_begin[1] != c.pad_begin[2]) {
    *why = "square kernels with one symmetric padding only";
    return false;
  }
  if (s.batch > INT32_MAX || c.in[1] > INT32_MAX || c.in[2] > INT32_MAX) {
    *why = "sizes beyond 32 bits";
    return false;
  }
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
  *out = shape;
  return true;
}

RunFn fused_conv_run(const KernelInit& init) {
  const TensorInfo& x = init.inputs[0];
  const TensorInfo& w = init.inputs[1];
  const bool has_bias = init.has_input(2);
  if (x.shape.size() != 4) return init.decline("2-D convolutions only");
  const DType storage = storage_dtype(init.precision);
  // In the 16-bit modes the input may be float32: the planner folded the graph input's Cast into the node
  // (rule conv_input_cast), and the kernel rounds it to the operand type as it stages it.
  const bool float_in = x.dtype == DType::Float32 && storage != DType::Float32;
  if ((x.dtype != storage && !float_in) || w.dtype != storage || init.outputs[0].dtype != storage)
    return init.decline("reads and writes ", dtype_name(storage), " in ", precision_name(init.precision), " mode, got ",
                        dtype_name(x.dtype), " input and ", dtype_name(w.dtype), " weights");
  if (!init.constants[1] || (has_bias && !init.constants[2])) return init.decline("weights and bias must be constant");
  std::string why;
  fc::ConvPoolShape shape{};
  if (!conv_pool_shape(init.node, x, w, has_bias ? &init.inputs[2] : nullptr, &shape, &why) ||
      !fc::supported(shape, &why))
    return init.decline(why);
  fc::DeviceLimits limits;
  if (fc::device_limits(&limits) != cudaSuccess) return init.decline("no CUDA device to plan for");
  fc::Variant v = variant_of(init.precision);
  const std::string packed_suffix = concat(static_cast<int>(v), "/", shape.c, "x", shape.r, "x", shape.k);
  fc::ConvPoolShape per_image = shape;
  per_image.n = 1;
  auto weights32 = [&] { return convert_floats(*init.constants[1], DType::Float32); };
  const float* bias = nullptr;
  if (has_bias)
    bias = static_cast<const float*>(
        init.prepared("bias/float32", [&] { return convert_floats(*init.constants[2], DType::Float32); }));

  // The candidates, in the heuristic's order: the stacked kernel first where it takes the shape (lab, batch
  // 10000, bf16: conv1 0.39 ms against 2.07, conv2 0.43 against 1.11), then the pixels-on-M tiles.
  std::vector<Candidate> candidates;
  // In tf32 mode short products are not rounded to TF32 once: with conv1 (K = 49) in tf32 the conv net's
  // probabilities missed the tf32 gate (rel L2 1.01e-3 against 1e-3 allowed). They run in FFMA or, where the
  // pool-on-M or shared-rows kernel takes the shape, as split bf16 products (hi and lo words, three MMAs:
  // fc::WordBf16x3).
  const bool short_k = shape.c * shape.r * shape.r < kMinTf32K;
  std::string stacked_why = v == fc::Variant::kFfma ? "strict fp32"
                            : v == fc::Variant::kTf32 && short_k
                                ? "tf32 mode keeps products shorter than 64 off one TF32 rounding"
                                : fc::stacked_unsupported(shape, v);
  // The wgmma pixels-on-M kernel first where it takes the shape (16-bit input of the mode's type; lab, H200, conv2 in
  // bf16: batch 10000 0.208 ms against the weights-on-M wgmma kernel's 0.262, 1000 0.0277 against 0.0315).
  // A 16-bit family's weights, packed once per engine by pack(T{}, float32 weights, bytes) with T the mode's type.
  auto prepared_16bit = [&](const std::string& family, size_t size, auto pack) {
    return init.prepared(family + "/" + packed_suffix, [&] {
      Tensor w32 = weights32();
      Tensor bytes(DType::UInt8, {static_cast<int64_t>(size)});
      if (v == fc::Variant::kMmaF16)
        pack(__half{}, w32.data_as<float>(), bytes.data());
      else
        pack(__nv_bfloat16{}, w32.data_as<float>(), bytes.data());
      return bytes;
    });
  };
  if (fc::wgmma_pixels_unsupported(shape, v).empty() && !float_in) {
    const void* packed = prepared_16bit(
        "wgmma_pixels", fc::wgmma_pixels_weight_bytes(per_image),
        [&](auto t, const float* w, void* out) { fc::wgmma_pixels_pack_weights<decltype(t)>(per_image, w, out); });
    fused_conv_select::add_wgmma_pixels_candidates(shape, v, float_in, packed, bias, &candidates);
  }
  // The warpgroup-MMA kernel next where it takes the shape (16-bit input of the mode's type: a second convolution;
  // lab, H200, conv2 in bf16: batch 10000 0.264 ms against shared rows' 0.294, 1000 0.0315 against 0.0403).
  if (fc::wgmma_unsupported(shape, v).empty() && !float_in) {
    const void* packed = prepared_16bit(
        "wgmma", fc::wgmma_weight_bytes(per_image),
        [&](auto t, const float* w, void* out) { fc::wgmma_pack_weights<decltype(t)>(per_image, w, out); });
    fused_conv_select::add_wgmma_candidates(shape, v, float_in, packed, bias, &candidates);
  }
  // Shared rows decide for themselves (tf32 mode as split bf16 products, whatever K; strict fp32 declined).
  if (fc::shared_rows_unsupported(shape, v).empty()) {
    const void* packed = init.prepared("shared_rows/" + packed_suffix, [&] {
      Tensor w32 = weights32();
      Tensor bytes(DType::UInt8, {static_cast<int64_t>(fc::stacked_weight_bytes(per_image, v, true))});
      fc::stacked_pack_weights(per_image, v, w32.data_as<float>(), bytes.data(), true);
      return bytes;
    });
    fused_conv_select::add_shared_rows_candidates(shape, v, float_in, packed, bias, limits.smem_optin, &candidates);
  }
  if (stacked_why.empty()) {
    const void* packed = init.prepared("stacked/" + packed_suffix, [&] {
      Tensor w32 = weights32();
      Tensor bytes(DType::UInt8, {static_cast<int64_t>(fc::stacked_weight_bytes(per_image, v))});
      fc::stacked_pack_weights(per_image, v, w32.data_as<float>(), bytes.data());
      return bytes;
    });
    fused_conv_select::add_stacked_candidates(shape, v, float_in, packed, bias, limits.smem_optin, &candidates);
  }
  if (fc::poolm_unsupported(shape, v).empty()) {
    fc::PoolMPlan weight_plan;
    if (fc::make_poolm_plan(per_image, v, limits.smem_optin, &weight_plan, nullptr)) {
      const void* packed = init.prepared("poolm/" + packed_suffix, [&] {
        Tensor w32 = weights32();
        Tensor bytes(DType::UInt8, {static_cast<int64_t>(fc::poolm_weight_bytes(weight_plan))});
        fc::poolm_pack_weights(weight_plan, v, w32.data_as<float>(), static_cast<uint4*>(bytes.data()));
        return bytes;
      });
      fused_conv_select::add_poolm_candidates(shape, v, float_in, packed, bias, limits.smem_optin, &candidates);
    }
  }
  // The pixels-on-M kernel; in tf32 mode short products run its FFMA variant (above; also no slower: lab, batch
  // 10000, conv1: 2.39 ms in tf32 against 2.42 in FFMA).
  fc::Variant pv = v;
  if (pv == fc::Variant::kTf32 && short_k) pv = fc::Variant::kFfma;
  const void* packed_pm =
      init.prepared(concat("packed/", static_cast<int>(pv), "/", shape.c, "x", shape.r, "x", shape.k), [&] {
        Tensor w32 = weights32();
        Tensor bytes(DType::UInt8, {static_cast<int64_t>(fc::packed_weight_bytes(per_image, pv))});
        fc::pack_weights(per_image, pv, w32.data_as<float>(), bytes.data());
        return bytes;
      });
  auto add_pm = [&](const char* name, LaunchFn launch) {
    candidates.push_back({name, [launch, pv, shape, packed_pm, bias](const void* x, void* y, cudaStream_t stream) {
                            return launch(pv, shape, x, packed_pm, bias, y, stream);
                          }});
  };
  fc::TilePlan plan;
  // Strict fp32's FFMA kernel with its kernel rows unrolled: candidates of their own (lab, H100, batch 10000: conv2
  // 3.70 -> 2.77 ms, conv1 2.41 -> 2.94), first in the heuristic's order with several input channels.
  const bool ffma_rows = pv == fc::Variant::kFfma && storage == DType::Float32 && !float_in;
  auto add_ffma_rows = [&] {
    if (!ffma_rows) return;
    if (fc::make_plan(shape, pv, fc::ConvTileSmallRows::kTargetPixels, limits.smem_optin, &plan, &why))
      add_pm(fc::ConvTileSmallRows::kName, launch_ffma<fc::ConvTileSmallRows>);
    if (fc::make_plan(shape, pv, fc::ConvTileLargeRows::kTargetPixels, limits.smem_optin, &plan, &why))
      add_pm(fc::ConvTileLargeRows::kName, launch_ffma<fc::ConvTileLargeRows>);
  };
  // The column kernel first: a lane's 8 or 16 rows of a column x 4 channels (lab, H200, batch 10000: see
  // fused_conv_columns.cuh); it shares the FFMA packing and declines shapes whose weights and tile do not fit.
  auto add_columns = [&](auto cfg) {
    using Cfg = decltype(cfg);
    if (ffma_rows && fc::make_column_plan(shape, Cfg::kRows, Cfg::kTargetPixels, limits.smem_optin, &plan, &why))
      add_pm(Cfg::kName, launch_columns<Cfg>);
  };
  add_columns(fc::ColumnTileR16W8{});
  add_columns(fc::ColumnTileR16W4{});
  add_columns(fc::ColumnTileR8W4{});
  add_columns(fc::ColumnTileR8W8{});
  add_columns(fc::ColumnTileR8W5{});
  if (shape.c > 1) add_ffma_rows();
  if (fc::make_plan(shape, pv, fc::ConvTileLarge::kTargetPixels, limits.smem_optin, &plan, &why))
    add_pm(fc::ConvTileLarge::kName, launcher_for<fc::ConvTileLarge>(storage, float_in));
  if (fc::make_plan(shape, pv, fc::ConvTileSmall::kTargetPixels, limits.smem_optin, &plan, &why))
    add_pm(fc::ConvTileSmall::kName, launcher_for<fc::ConvTileSmall>(storage, float_in));
  if (shape.c == 1) add_ffma_rows();
  if (candidates.empty()) return init.decline(why);

  // IE_FUSED_CONV_CONFIG=<name>: that configuration only (every one is testable on a shape it takes).
  if (const char* forced = std::getenv("IE_FUSED_CONV_CONFIG"); forced && *forced) {
    auto it = std::find_if(candidates.begin(), candidates.end(), [&](const Candidate& c) { return c.name == forced; });
    if (it == candidates.end())
      return init.decline("IE_FUSED_CONV_CONFIG=", forced, " is not a configuration for this shape",
                          stacked_why.empty() ? "" : concat(" (stacked kernel: ", stacked_why, ")"));
    return it->run;
  }
  return choose_config(init, shape, v, x.dtype, storage, candidates).run;
}

}  // namespace fused_conv_select

namespace {

std::unique_ptr<Kernel> make_fused_conv(const KernelInit& init) {
  RunFn run = fused_conv_select::fused_conv_run(init);
  if (!run) return nullptr;
  return std::make_unique<fused_conv_select::RunKernel>(std::move(run), init.node.label(), "fused convolution");
}

}  // namespace

IE_REGISTER_OPS(fused_conv_fused) {
  OpRegistry::get().add_kernel("ie", "FusedConv", kernel_set::kCuda, make_fused_conv, fused_conv_cuda_supports);
}

}  // namespace ie
