// The stacked kernel's tile configurations as candidates of the fused set's ie.FusedConv (fused_conv_cuda.cu). A
// translation unit of its own: the CUDA runtime loads a module on its first kernel's use, at about 1 ms per MB of
// code, so the kernels a model runs should not share a module with the many it does not.
#include "layers/fused_conv/fused_conv_select.h"
#include "layers/fused_conv/fused_conv_stacked.cuh"

namespace ie {
namespace {

namespace fc = ie::fused_conv;
using fused_conv_select::Candidate;
using fused_conv_select::RunFn;

// The stacked kernel's configurations for a shape, in the heuristic's order: fewest padded n-tiles first (conv1's
// 80 columns: 5 per unit; conv2's 32: 4), then wider units.
template <class Word, class TIn, class T>
void stacked_candidates(const fc::ConvPoolShape& s, fc::Variant v, const void* packed, const float* bias,
                        int smem_limit, std::vector<Candidate>* out) {
  struct Option {
    Candidate c;
    int waste, nw;
  };
  std::vector<Option> options;
  // A configuration's kernel, on its own tile size or on `target_pixels` conv outputs per tile (named `name`).
  auto add = [&](auto cfg, const char* name = nullptr, int target_pixels = 0) {
    using Cfg = decltype(cfg);
    fc::StackedPlan plan;
    if (!fc::make_stacked_plan(s, v, Cfg::kNW, target_pixels ? target_pixels : Cfg::kTargetPixels, smem_limit, &plan,
                               nullptr, sizeof(TIn)))
      return;
    RunFn run = [plan, packed, bias](const void* x, void* y, cudaStream_t stream) {
      return fc::launch_fused_conv_stacked<Cfg, Word, TIn, T>(plan, static_cast<const TIn*>(x), packed, bias,
                                                              static_cast<T*>(y), stream);
    };
    const int ntiles = (plan.cwk + 7) / 8;
    options.push_back({{name ? name : Cfg::kName, std::move(run)}, plan.groups * plan.nw - ntiles, plan.nw});
  };
  add(fc::StackedW4N5{});  // conv1 (lab, batch 10000): 0.33 ms
  add(fc::StackedW5N5{});
  add(fc::StackedW4N4{});  // conv2: 0.38 ms
  add(fc::StackedW8N5{});
  add(fc::StackedW8N4{});
  add(fc::StackedW4N4Small{});  // batch 1: conv2 0.012 ms
  add(fc::StackedW4N2{});       // batch 1: conv1 0.008 ms
  add(fc::StackedW8N2{});
  // Latency tiles for small batches: the same kernels on bands of 2-4 pooled rows of conv1's size, so that one
  // image spreads over 10-20 CTAs instead of 2 (a CTA's time is a chain of dependent MMAs over its units). H200,
  // bf16, tuning records (one launch between events): conv1 at batch 1 11.7 -> 9.1 us, at 16 12.0 -> 9.3 us.
  add(fc::StackedW4N5{}, "stk_w4_n5_px640", 640);
  add(fc::StackedW4N5{}, "stk_w4_n5_px320", 320);
  std::stable_sort(options.begin(), options.end(), [](const Option& a, const Option& b) {
    return a.waste != b.waste ? a.waste < b.waste : a.nw > b.nw;
  });
  for (Option& o : options) out->push_back(std::move(o.c));
}

}  // namespace

void fused_conv_select::add_stacked_candidates(const fc::ConvPoolShape& s, fc::Variant v, bool float_in,
                                               const void* packed, const float* bias, int smem_limit,
                                               std::vector<Candidate>* out) {
  fused_conv_select::with_mma_types<fused_conv_select::Tf32Words::kTf32>(v, float_in, [&](auto word, auto in, auto t) {
    stacked_candidates<decltype(word), decltype(in), decltype(t)>(s, v, packed, bias, smem_limit, out);
  });
}

}  // namespace ie
