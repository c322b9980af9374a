// ie.FusedConvPair on the fused set "cuda": a pool-on-M FusedConv feeding a shared-rows FusedConv in one kernel
// (fused_conv_pair.cuh), the first one's pooled map kept in shared memory. The pair is a candidate beside the two
// convolutions' own kernels: on first use for a (device, shape, precision) the pair's configurations and the two
// kernels run apart are timed, and when the two apart win (the conv net at large batches: H200, batch 10000,
// 0.498 ms apart against 0.531 for the pair; at batch 1 the pair wins, 0.0148 against 0.0195), the node declines
// with the figures, so the planner lowers it as the two ie.FusedConv nodes it replaced. IE_TUNE=off: the pair
// up to 256 images, the two apart beyond. IE_FUSED_CONV_PAIR_CONFIG=<name> forces a configuration (or "apart").
#include <cstdlib>
#include <optional>

#include "engine/backend/backend.h"
#include "engine/backend/cuda/cuda_check.h"
#include "engine/backend/cuda/cuda_state.h"
#include "engine/backend/cuda/cuda_tuning.h"
#include "engine/core/float_convert.h"
#include "engine/registry/op_def.h"
#include "layers/fused_conv/fused_conv_pair.cuh"
#include "layers/fused_conv/fused_conv_pair_setup.h"
#include "layers/fused_conv/fused_conv_select.h"
#include "layers/fused_conv/fused_conv_setup.h"

namespace ie {
namespace {

namespace fc = ie::fused_conv;
namespace sel = ie::fused_conv_select;

constexpr int64_t kPairHeuristicMaxBatch = 256;  // IE_TUNE=off: the pair up to this batch (lab, H200: see above)
constexpr const char* kApart = "apart";

// The pair's configurations for the two shapes (bulk staging where the image is whole 16-byte chunks, else loads).
template <class Word, class TIn, class T>
void add_pair_candidates(const fc::ConvPoolShape& s1, const fc::ConvPoolShape& s2, fc::Variant v, const void* w1,
                         const float* b1, const void* w2, const float* b2, int smem_limit,
                         std::vector<sel::Candidate>* out, std::string* why) {
  auto add = [&](auto cfg) {
    using Cfg = decltype(cfg);
    fc::PairPlan plan;
    if (!fc::make_pair_plan(s1, s2, v, Cfg::kNW, smem_limit, sizeof(TIn), true, &plan, nullptr) &&
        !fc::make_pair_plan(s1, s2, v, Cfg::kNW, smem_limit, sizeof(TIn), false, &plan, why))
      return;
    out->push_back({Cfg::kName, [plan, w1, b1, w2, b2](const void* x, void* y, cudaStream_t stream) {
                      return fc::launch_fused_conv_pair<Cfg, Word, TIn, T>(plan, static_cast<const TIn*>(x), w1, b1, w2,
                                                                           b2, static_cast<T*>(y), stream);
                    }});
  };
  add(fc::PairW8{});  // batch 1 and 128: 25% faster than the two apart (lab)
  add(fc::PairW4{});
}

// The sub-step of one part (a FusedConv node) as the set would plan it alone.
struct Part {
  const Node& node;
  std::vector<TensorInfo> inputs, outputs;
  std::vector<const Tensor*> constants;
  KernelInit init(const KernelInit& pair) const {
    KernelInit k{node, inputs, constants, outputs, pair.opset};
    k.precision = pair.precision;
    k.backend_state = pair.backend_state;
    k.backend = pair.backend;
    k.store = pair.store;
    return k;
  }
};

std::unique_ptr<Kernel> make_fused_conv_pair(const KernelInit& init) {
  const Node& node = init.node;
  if (node.replaced.size() != 2) return init.decline("expects the two ie.FusedConv nodes it replaced");
  const DType storage = storage_dtype(init.precision);
  if (storage != DType::BFloat16 && storage != DType::Float16)
    return init.decline("the pair runs in the bf16 and fp16 modes only");
  const fc::Variant v = storage == DType::BFloat16 ? fc::Variant::kMmaBf16 : fc::Variant::kMmaF16;
  const PairInputs io = pair_inputs(init.inputs);
  for (int i : {io.w1, io.w2, io.b1, io.b2})
    if (i >= 0 && !init.constants[i]) return init.decline("weights and biases must be constant");
  const TensorInfo& x = init.inputs[0];
  const bool float_in = x.dtype == DType::Float32;
  if ((x.dtype != storage && !float_in) || init.inputs[io.w1].dtype != storage || init.inputs[io.w2].dtype != storage ||
      init.outputs[0].dtype != storage)
    return init.decline("reads and writes ", dtype_name(storage), " in ", precision_name(init.precision), " mode");
  const TensorInfo map = resolve_pair(node, init.inputs).map;
  Part first{node.replaced[0], {x, init.inputs[io.w1], io.b1 >= 0 ? init.inputs[io.b1] : TensorInfo{}}, {map}, {}};
  first.constants = {nullptr, init.constants[io.w1], io.b1 >= 0 ? init.constants[io.b1] : nullptr};
  Part second{node.replaced[1],
              {map, init.inputs[io.w2], io.b2 >= 0 ? init.inputs[io.b2] : TensorInfo{}},
              {init.outputs[0]},
              {nullptr, init.constants[io.w2], io.b2 >= 0 ? init.constants[io.b2] : nullptr}};
  fc::ConvPoolShape s1{}, s2{};
  std::string why;
  if (!sel::conv_pool_shape(first.node, first.inputs[0], first.inputs[1], io.b1 >= 0 ? &first.inputs[2] : nullptr, &s1,
                            &why) ||
      !sel::conv_pool_shape(second.node, map, second.inputs[1], io.b2 >= 0 ? &second.inputs[2] : nullptr, &s2, &why))
    return init.decline(why);
  if (std::string no = fc::pair_unsupported(s1, s2, v); !no.empty()) return init.decline(no);
  fc::DeviceLimits limits;
  if (fc::device_limits(&limits) != cudaSuccess) return init.decline("no CUDA device to plan for");

  // What is decided without the pair's kernels comes first (the two apart: no weights packed for the pair).
  if (const char* single = std::getenv("IE_FUSED_CONV_CONFIG"); single && *single)
    return init.decline("IE_FUSED_CONV_CONFIG forces the convolutions' own configurations");
  const char* forced = std::getenv("IE_FUSED_CONV_PAIR_CONFIG");
  if (forced && !*forced) forced = nullptr;
  if (forced && std::string(forced) == kApart) return init.decline("IE_FUSED_CONV_PAIR_CONFIG=apart");
  const bool tuned = tune_mode() != TuneMode::Off && init.backend;
  if (!forced && !tuned && s1.n > kPairHeuristicMaxBatch)
    return init.decline("the two convolutions run apart beyond ", kPairHeuristicMaxBatch, " images (IE_TUNE=off)");
  // Tuned: the pair's configurations against the two parts' own kernels (each tuned as for its own step).
  TuningCache* cache = tuned ? &tuning_cache_for(cuda::tuning_device_key(cuda::state_of(init.backend_state))) : nullptr;
  const std::string kernel = concat("fused_conv_pair_", static_cast<int>(v));
  const std::string shape = concat(s1.n, ",", s1.c, ",", s1.h, ",", s1.w, "/", s1.k, ",", s1.r, "/", s2.k, ",", s2.r,
                                   "/", s2.pool_window, "/", dtype_name(storage), float_in ? "/in:float32" : "");
  const std::string mode = precision_name(init.precision);
  auto decline_apart = [&](const TuneRecord& r) {
    return init.decline("the two convolutions run faster apart at this batch (", r.number("apart_ms").value_or(0),
                        " ms against the pair's ", r.number("pair_ms").value_or(0), ")");
  };
  const std::optional<TuneRecord> hit = cache && !forced ? cache->lookup(kernel, shape, mode) : std::nullopt;
  if (hit && hit->text("config") == kApart) return decline_apart(*hit);

  // Weights in the two kernels' layouts (the same packing as the parts' own kernels), biases in fp32.
  fc::ConvPoolShape one1 = s1, one2 = s2;
  one1.n = one2.n = 1;
  fc::PoolMPlan weight_plan;
  if (!fc::make_poolm_plan(one1, v, limits.smem_optin, &weight_plan, &why)) return init.decline(why);
  const void* w1 = init.prepared("first/poolm", [&] {
    Tensor w32 = convert_floats(*init.constants[io.w1], DType::Float32);
    Tensor bytes(DType::UInt8, {static_cast<int64_t>(fc::poolm_weight_bytes(weight_plan))});
    fc::poolm_pack_weights(weight_plan, v, w32.data_as<float>(), static_cast<uint4*>(bytes.data()));
    return bytes;
  });
  const void* w2 = init.prepared("second/shared_rows", [&] {
    Tensor w32 = convert_floats(*init.constants[io.w2], DType::Float32);
    Tensor bytes(DType::UInt8, {static_cast<int64_t>(fc::stacked_weight_bytes(one2, v, true))});
    fc::stacked_pack_weights(one2, v, w32.data_as<float>(), bytes.data(), true);
    return bytes;
  });
  auto bias_of = [&](int i, const char* key) -> const float* {
    if (i < 0) return nullptr;
    return static_cast<const float*>(
        init.prepared(key, [&] { return convert_floats(*init.constants[i], DType::Float32); }));
  };
  const float* b1 = bias_of(io.b1, "first/bias");
  const float* b2 = bias_of(io.b2, "second/bias");
  std::vector<sel::Candidate> candidates;
  sel::with_mma_types<sel::Tf32Words::kNone>(v, float_in, [&](auto word, auto in, auto out) {
    add_pair_candidates<decltype(word), decltype(in), decltype(out)>(s1, s2, v, w1, b1, w2, b2, limits.smem_optin,
                                                                     &candidates, &why);
  });
  if (candidates.empty()) return init.decline(why);

  auto make = [&](const sel::Candidate& c) {
    return std::make_unique<sel::RunKernel>(c.run, node.label(), "fused convolution pair");
  };
  if (forced) {
    for (const sel::Candidate& c : candidates)
      if (c.name == forced) return make(c);
    return init.decline("IE_FUSED_CONV_PAIR_CONFIG=", forced, " is not a configuration for these shapes");
  }
  if (!tuned) return make(candidates.front());
  if (hit)
    for (const sel::Candidate& c : candidates)
      if (hit->text("config") == c.name) return make(c);
  std::string why1, why2;
  KernelInit init1 = first.init(init), init2 = second.init(init);
  init1.declined = &why1, init2.declined = &why2;
  sel::RunFn run1 = sel::fused_conv_run(init1), run2 = sel::fused_conv_run(init2);
  std::lock_guard<std::mutex> lock(sel::timing_mutex());
  sel::DeviceScratch scratch(*init.backend);
  const int64_t in_count = int64_t(s1.n) * s1.c * s1.h * s1.w;
  const int64_t map_count = int64_t(s2.n) * s2.c * s2.h * s2.w;
  const int64_t out_count = int64_t(s2.n) * s2.k * fc::pooled_h(s2) * fc::pooled_w(s2);
  void* tx = scratch.get(static_cast<size_t>(in_count) * dtype_size(x.dtype));
  void* tmap = scratch.get(static_cast<size_t>(map_count) * dtype_size(storage));
  void* ty = scratch.get(static_cast<size_t>(out_count) * dtype_size(storage));
  auto stream = static_cast<cudaStream_t>(init.backend->stream());
  sel::fill_timing_values(x.dtype, tx, in_count, stream);
  TuneRecord record;
  double best_ms = 0;
  const sel::Candidate* best = &sel::fastest(candidates, tx, ty, stream, &record, &best_ms);
  record.set("pair_ms", best_ms);
  if (run1 && run2) {
    const sel::Candidate apart{kApart, [&](const void* in, void* out, cudaStream_t s) {
                                 cudaError_t err = run1(in, tmap, s);
                                 return err != cudaSuccess ? err : run2(tmap, out, s);
                               }};
    const double ms = sel::time_candidate(apart, tx, ty, stream);
    record.set("apart_ms", ms);
    if (ms < best_ms) {
      record.set("config", kApart).set("time_ms", ms);
      cache->store(kernel, shape, mode, record);
      return decline_apart(record);
    }
  }
  record.set("config", best->name).set("time_ms", best_ms);
  cache->store(kernel, shape, mode, record);
  return make(*best);
}

}  // namespace

IE_REGISTER_OPS(fused_conv_pair_fused) {
  // No attribute check before fusing (the pair's parts are attached after it): the kernel declines shapes outside
  // its range, and the planner then runs the two convolutions as they were.
  OpRegistry::get().add_kernel("ie", "FusedConvPair", kernel_set::kCuda, make_fused_conv_pair);
}

}  // namespace ie
