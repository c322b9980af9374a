// The pool-on-M kernel's configurations as candidates of the fused set's ie.FusedConv (fused_conv_cuda.cu), in a
// module of their own (see fused_conv_stacked_cuda.cu).
#include "layers/fused_conv/fused_conv_poolm.cuh"
#include "layers/fused_conv/fused_conv_select.h"

namespace ie {
namespace {

namespace fc = ie::fused_conv;
using fused_conv_select::Candidate;
using fused_conv_select::RunFn;

// The pool-on-M kernel (k <= 4 channels, 2x2 pools, unpadded, kernels up to 7x7: the pool window's positions on M;
// fused_conv_poolm.cuh), after the stacked candidates in the heuristic's order. Lab, H200, conv1 (float32 in,
// bf16 out, ms): batch 1 0.0053 (bands of 4 pooled rows) against the stacked kernel's 0.0098; with whole images
// staged by bulk copy (the next one in flight) 1000 0.0307 against 0.0393, 10000 0.206 against 0.306
// (tools/results/h200/conv_poolm/, conv_profile/). In tf32 mode, split products (float32 in and out) against the
// FFMA kernel: 10000 0.388 against 2.416, 1000 0.0475 against 0.245 (tools/results/h200/tf32_split/).
template <class Word, class TIn, class T>
void poolm_candidates(const fc::ConvPoolShape& s, fc::Variant v, const void* packed, const float* bias, int smem_limit,
                      std::vector<Candidate>* out) {
  auto add = [&](auto cfg) {
    using Cfg = decltype(cfg);
    fc::PoolMPlan plan;
    if (!fc::plan_poolm<Cfg, TIn>(s, v, smem_limit, &plan, nullptr)) return;
    out->push_back({Cfg::kName, [plan, packed, bias](const void* x, void* y, cudaStream_t stream) {
                      return fc::launch_fused_conv_poolm<Cfg, Word, TIn, T>(plan, static_cast<const TIn*>(x), packed,
                                                                            bias, static_cast<T*>(y), stream);
                    }});
  };
  add(fc::PoolMW4N5{});
  add(fc::PoolMW8N5{});
  add(fc::PoolMW4N5R4{});
  add(fc::PoolMW4N5Bulk{});
  add(fc::PoolMW8N5Bulk{});
  if constexpr (fc::kSplitWord<Word>) {  // 80 registers spill with split words (fused_conv_poolm.cuh)
    add(fc::PoolMW8N5Bulk2{});
    add(fc::PoolMW8N3Bulk{});
  }
}

}  // namespace

void fused_conv_select::add_poolm_candidates(const fc::ConvPoolShape& s, fc::Variant v, bool float_in,
                                             const void* packed, const float* bias, int smem_limit,
                                             std::vector<Candidate>* out) {
  // tf32 mode: float32 in and out, the products split in hi and lo bf16 (fc::WordBf16x3).
  fused_conv_select::with_mma_types<fused_conv_select::Tf32Words::kSplit>(v, float_in, [&](auto word, auto in, auto t) {
    poolm_candidates<decltype(word), decltype(in), decltype(t)>(s, v, packed, bias, smem_limit, out);
  });
}

}  // namespace ie
