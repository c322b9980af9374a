// The split float32 Linear's instantiations in the engine (linear_split.cuh): K and N of 32, 64 or 128 (not both
// 128: W's split blocks would exceed a CTA's default 48 KB of shared memory), no activation or the erf GELU, with or
// without a residual: the SSA's products but its latent ones (K = 640, N = 640) and other sizes of its
// architecture. Each shape is its own kernel (K and N size its registers); other shapes decline to the FFMA kernel.
#include <cstdlib>

#include "layers/linear/linear_split_launch.h"

namespace ie::lin::split {
namespace {

// Strict fp32 on the split kernel (linear_split.cuh): relative L2 <= 4.5e-7 against float64 beside the FFMA
// kernel's 1.9e-7, 1.6-2.5x its speed on the SSA's products at 655,360 rows and 1.3-1.9x at 40,960 (H200,
// tools/results/h200/linear_split/, lab). The SSA's fp32 plan with it wherever it applies, against without it, in
// one call (call_f, ms): batch 1 (10 rows) 0.0692 / 0.0649, 32 (320 rows) 0.0944 / 0.0993, 512 0.1113 / 0.1130,
// 4096 0.314 / 0.366, 65536 3.70 / 4.53: hence from 320 rows. IE_LINEAR_FP32=split takes it at every row count.
constexpr int64_t kSplitMinRows = 320;

bool sized(int64_t v) { return v == 32 || v == 64 || v == 128; }

template <int KT>
cudaError_t launch_n(const Params& p, int sms, cudaStream_t s) {
  if (p.n == 32) return launch<KT, 2>(p, sms, s);
  if (p.n == 64) return launch<KT, 4>(p, sms, s);
  if constexpr (KT < 8) return launch<KT, 8>(p, sms, s);
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

std::string fp32_linear_choice() {
  const char* env = std::getenv("IE_LINEAR_FP32");
  return env ? env : "";
}

bool fp32_linear_takes(int64_t rows, int64_t k, int64_t n, dev::Act act) {
  if (!unsupported(k, n, act).empty()) return false;
  const std::string choice = fp32_linear_choice();
  return choice == "split" || (choice.empty() && rows >= kSplitMinRows);
}

cudaError_t launch_compiled(const Params& p, int sms, cudaStream_t s) {
  if (!unsupported(p.k, p.n, p.act).empty()) return cudaErrorInvalidValue;
  if (p.rows < 1) return cudaSuccess;
  if (p.k == 32) return launch_n<2>(p, sms, s);
  if (p.k == 64) return launch_n<4>(p, sms, s);
  return launch_n<8>(p, sms, s);
}

}  // namespace ie::lin::split
