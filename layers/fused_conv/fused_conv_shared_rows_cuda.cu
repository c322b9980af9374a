// The shared-rows plans of the stacked kernel as candidates of the fused set's ie.FusedConv (fused_conv_cuda.cu),
// in a module of their own (see fused_conv_stacked_cuda.cu).
#include "layers/fused_conv/fused_conv_select.h"
#include "layers/fused_conv/fused_conv_stacked.cuh"

namespace ie {
namespace {

namespace fc = ie::fused_conv;
using fused_conv_select::Candidate;
using fused_conv_select::RunFn;

// The stacked kernel's shared-rows plans (9..16 channels, 5x5 or 7x7, 2x2 or 4x4 pools; their own weight layout):
// a pool window's conv rows share their B loads (lab, H200, batch 10000, bf16, conv2: 0.288 ms against 0.338;
// batch 1: 0.0092 against 0.0117). Ahead of the stacked candidates in the heuristic's order. tf32 mode runs them as
// split bf16 products (float32 in and out): conv2 at 10000 0.668 ms against the pixels-on-M tf32 kernel's 1.431
// (tools/results/h200/tf32_split/call_g/).
template <class Word, class TIn, class T>
void shared_rows_candidates(const fc::ConvPoolShape& s, fc::Variant v, const void* packed, const float* bias,
                            int smem_limit, std::vector<Candidate>* out) {
  auto add = [&](auto cfg, const char* name, int target_pixels = 0) {
    using Cfg = decltype(cfg);
    fc::StackedPlan plan;
    if (!fc::make_stacked_plan(s, v, Cfg::kNW, target_pixels ? target_pixels : Cfg::kTargetPixels, smem_limit, &plan,
                               nullptr, sizeof(TIn), true))
      return;
    out->push_back({name, [plan, packed, bias](const void* x, void* y, cudaStream_t stream) {
                      return fc::launch_fused_conv_shared_rows<Cfg, Word, TIn, T>(
                          plan, static_cast<const TIn*>(x), packed, bias, static_cast<T*>(y), stream);
                    }});
  };
  add(fc::StackedW4N4{}, "shr_w4_n4_px1024");
  add(fc::StackedW4N4Small{}, "shr_w4_n4_px512");
  // Latency tiles (small batches): one or two pooled rows of conv2's size per CTA, a unit per warp at most. They
  // gain little (H200, batch 16: 11.5-12.7 us against 11.8-13.2 for px512): conv2's time is its units' MMA chain.
  add(fc::StackedW4N4Small{}, "shr_w4_n4_px256", 256);
  add(fc::StackedW4N4Small{}, "shr_w4_n4_px128", 128);
}

}  // namespace

void fused_conv_select::add_shared_rows_candidates(const fc::ConvPoolShape& s, fc::Variant v, bool float_in,
                                                   const void* packed, const float* bias, int smem_limit,
                                                   std::vector<Candidate>* out) {
  fused_conv_select::with_mma_types<fused_conv_select::Tf32Words::kSplit>(v, float_in, [&](auto word, auto in, auto t) {
    shared_rows_candidates<decltype(word), decltype(in), decltype(t)>(s, v, packed, bias, smem_limit, out);
  });
}

}  // namespace ie
