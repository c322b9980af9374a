// The wgmma pixels-on-M kernel's configurations as candidates of the fused set's ie.FusedConv (fused_conv_cuda.cu), in
// a module of their own (see fused_conv_stacked_cuda.cu).
#include "layers/fused_conv/fused_conv_select.h"
#include "layers/fused_conv/fused_conv_wgmma_pixels.cuh"

namespace ie {
namespace {

namespace fc = ie::fused_conv;
using fused_conv_select::Candidate;

// The kernel (16-bit input of the product's type, up to 8 input and 16 output channels, 2x2 or 4x4 pools, padding;
// fused_conv_wgmma_pixels.cuh). Lab, H200, conv2 in bf16, same process (tools/results/h200/conv_wgmma_pixels/call_d):
// batch 10000 0.208 ms (one warpgroup a CTA) / 0.210 (two) against the weights-on-M wgmma kernel's 0.262; 1000
// 0.0277 / 0.0276 against 0.0315; batch 1 0.0059-0.0068 against 0.0060-0.0063. One warpgroup first in the
// heuristic's order.
template <class T>
void wgmma_pixels_candidates(const fc::ConvPoolShape& s, fc::Variant v, const void* packed, const float* bias,
                             std::vector<Candidate>* out) {
  fc::WgPixelsPlan plan;
  std::string why;
  if (!fc::make_wgmma_pixels_plan(s, v, &plan, &why)) return;
  auto add = [&](auto cfg) {
    using Cfg = decltype(cfg);
    out->push_back({Cfg::kName, [plan, packed, bias](const void* x, void* y, cudaStream_t stream) {
                      return fc::launch_fused_conv_wgmma_pixels<Cfg, T, T>(plan, static_cast<const T*>(x), packed, bias,
                                                                           static_cast<T*>(y), stream);
                    }});
  };
  add(fc::WgPixelsOne{});
  add(fc::WgPixelsTwo{});
}

}  // namespace

void fused_conv_select::add_wgmma_pixels_candidates(const fc::ConvPoolShape& s, fc::Variant v, bool float_in,
                                                    const void* packed, const float* bias,
                                                    std::vector<Candidate>* out) {
  if (float_in) return;  // the kernel stages 16-bit input elements as they are
  if (v == fc::Variant::kMmaBf16) wgmma_pixels_candidates<__nv_bfloat16>(s, v, packed, bias, out);
  if (v == fc::Variant::kMmaF16) wgmma_pixels_candidates<__half>(s, v, packed, bias, out);
}

}  // namespace ie
