// The warpgroup-MMA kernel's configurations as candidates of the fused set's ie.FusedConv (fused_conv_cuda.cu), in
// a module of their own (see fused_conv_stacked_cuda.cu).
#include "layers/fused_conv/fused_conv_select.h"
#include "layers/fused_conv/fused_conv_wgmma.cuh"

namespace ie {
namespace {

namespace fc = ie::fused_conv;
using fused_conv_select::Candidate;

// The wgmma kernel (16-bit input of the product's type, up to 16 output channels, 2x2 or 4x4 pools, up to 64 kept
// columns; fused_conv_wgmma.cuh). Lab, H200, conv2 bf16, same process (tools/results/h200/conv_wgmma/call_g):
// batch 10000 0.264 ms (s1) / 0.278 against the shared-rows kernel's 0.294; 1000 0.0315 / 0.0324 against 0.0403;
// batch 1 0.0077-0.0081 against 0.0126 (px512: 0.0087). The one-buffer configuration first in the heuristic's order.
template <class T>
void wgmma_candidates(const fc::ConvPoolShape& s, fc::Variant v, const void* packed, const float* bias,
                      std::vector<Candidate>* out) {
  fc::WgmmaPlan plan;
  std::string why;
  if (!fc::make_wgmma_plan(s, v, &plan, &why)) return;
  auto add = [&](auto cfg) {
    using Cfg = decltype(cfg);
    out->push_back({Cfg::kName, [plan, packed, bias](const void* x, void* y, cudaStream_t stream) {
                      return fc::launch_fused_conv_wgmma<Cfg, T, T>(plan, static_cast<const T*>(x), packed, bias,
                                                                    static_cast<T*>(y), stream);
                    }});
  };
  add(fc::WgmmaTile1{});
  add(fc::WgmmaTile2{});
}

}  // namespace

void fused_conv_select::add_wgmma_candidates(const fc::ConvPoolShape& s, fc::Variant v, bool float_in,
                                             const void* packed, const float* bias, std::vector<Candidate>* out) {
  if (float_in) return;  // the kernel copies 16-bit input elements as they are
  if (v == fc::Variant::kMmaBf16) wgmma_candidates<__nv_bfloat16>(s, v, packed, bias, out);
  if (v == fc::Variant::kMmaF16) wgmma_candidates<__half>(s, v, packed, bias, out);
}

}  // namespace ie
