// The split float32 Linear's instantiations in the engine (linear_split.cuh): K and N of 32, 64 or 128 (not both
// 128: W's split blocks would exceed a CTA's default 48 KB of shared memory), no activation or the erf GELU, with or
// without a residual: the SSA's products but its latent ones (K = 640, N = 640) and other sizes of its
// architecture. Each shape is its own kernel (K and N size its registers); other shapes decline to the FFMA kernel.
#include "layers/linear/linear_split_launch.h"

namespace ie::lin::split {
namespace {

bool sized(int64_t v) { return v == 32 || v == 64 || v == 128; }

template <int KT, int NP>
cudaError_t launch_act(const Params& p, int sms, cudaStream_t s) {
  const bool r = p.residual != nullptr;
  if (p.act == dev::Act::Gelu)
    return r ? launch_kernel<KT, NP, dev::Act::Gelu, true>(p, sms, s)
             : launch_kernel<KT, NP, dev::Act::Gelu, false>(p, sms, s);
  return r ? launch_kernel<KT, NP, dev::Act::None, true>(p, sms, s)
           : launch_kernel<KT, NP, dev::Act::None, false>(p, sms, s);
}

template <int KT>
cudaError_t launch_n(const Params& p, int sms, cudaStream_t s) {
  if (p.n == 32) return launch_act<KT, 2>(p, sms, s);
  if (p.n == 64) return launch_act<KT, 4>(p, sms, s);
  if constexpr (KT < 8) return launch_act<KT, 8>(p, sms, s);
  return cudaErrorInvalidValue;
}

}  // namespace

std::string unsupported(int64_t k, int64_t n, dev::Act act) {
  if (!sized(k) || !sized(n) || (k == 128 && n == 128))
    return "K = " + std::to_string(k) + ", N = " + std::to_string(n) +
           " (the split kernel is compiled for K and N of 32, 64 or 128, not both 128)";
  if (act != dev::Act::None && act != dev::Act::Gelu) return "its activation (the split kernel takes none or GELU)";
  return "";
}

cudaError_t launch_compiled(const Params& p, int sms, cudaStream_t s) {
  if (!unsupported(p.k, p.n, p.act).empty()) return cudaErrorInvalidValue;
  if (p.rows < 1) return cudaSuccess;
  if (p.k == 32) return launch_n<2>(p, sms, s);
  if (p.k == 64) return launch_n<4>(p, sms, s);
  return launch_n<8>(p, sms, s);
}

}  // namespace ie::lin::split
