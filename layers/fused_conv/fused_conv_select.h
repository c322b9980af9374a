// What the fused set's convolution kernels share with the kernels built on them (the conv pair): a node's shape in
// the kernels' terms, the launcher the set would choose for an ie.FusedConv node, and the tuner's timing helpers.
// Defined in fused_conv_cuda.cu, the candidate lists in each family's own file (fused_conv_poolm_cuda.cu,
// fused_conv_shared_rows_cuda.cu, fused_conv_stacked_cuda.cu); for .cu files only (the shapes come from
// fused_conv_cuda.cuh).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/profile/tuning_cache.h"
#include "engine/registry/op_def.h"
#include "layers/fused_conv/fused_conv_cuda.cuh"

namespace ie::fused_conv_select {

/// One launch of a configured kernel: x to y on a stream.
using RunFn = std::function<cudaError_t(const void* x, void* y, cudaStream_t stream)>;
/// One tile configuration of one kernel family, bound to its shape, packed weights and bias.
struct Candidate {
  std::string name;
  RunFn run;
};

/// The step's kernel: one configured launch on the step's stream; a launch error names the node and `what` ran.
class RunKernel : public Kernel {
 public:
  RunKernel(RunFn run, std::string label, std::string what)
      : m_run(std::move(run)), m_label(std::move(label)), m_what(std::move(what)) {}
  void run(KernelContext& ctx) override;

 private:
  RunFn m_run;
  std::string m_label, m_what;
};

/// Device buffers for a timing, freed however the timing ends.
struct DeviceScratch {
  Backend& backend;
  std::vector<void*> blocks;
  explicit DeviceScratch(Backend& b) : backend(b) {}
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  void* get(size_t bytes) { return blocks.emplace_back(backend.allocate(bytes)); }
  ~DeviceScratch() {
    for (void* p : blocks) backend.deallocate(p);
  }
};

/// An ie.FusedConv node's convolution and pool as the kernels take them; false with the reason for shapes no fused
/// kernel takes (non-square kernels, uneven padding, sizes beyond 32 bits).
bool conv_pool_shape(const Node& node, const TensorInfo& x, const TensorInfo& w, const TensorInfo* b,
                     fused_conv::ConvPoolShape* out, std::string* why);

/// The launcher the fused set runs for an ie.FusedConv node (its configuration tuned and cached as for the node's
/// own step); empty when it declines, the reason left by init.decline.
RunFn fused_conv_run(const KernelInit& init);

/// Held while a kernel times its candidates: timings running at once on one GPU disturb each other.
std::mutex& timing_mutex();

/// Each kernel family's candidates for a shape in the heuristic's order, launching the family's packed weights
/// `packed` (on the device) and the fp32 bias: the stacked kernel, its shared-rows plans, the pool-on-M kernel, the
/// two warpgroup-MMA kernels (weights on M; pixels on M). Each family is a module of its own
/// (fused_conv_stacked_cuda.cu, fused_conv_shared_rows_cuda.cu, fused_conv_poolm_cuda.cu, fused_conv_wgmma_cuda.cu,
/// fused_conv_wgmma_pixels_cuda.cu): a model loads the code of the families it runs only.
void add_stacked_candidates(const fused_conv::ConvPoolShape& s, fused_conv::Variant v, bool float_in,
                            const void* packed, const float* bias, int smem_limit, std::vector<Candidate>* out);
void add_shared_rows_candidates(const fused_conv::ConvPoolShape& s, fused_conv::Variant v, bool float_in,
                                const void* packed, const float* bias, int smem_limit, std::vector<Candidate>* out);
void add_poolm_candidates(const fused_conv::ConvPoolShape& s, fused_conv::Variant v, bool float_in, const void* packed,
                          const float* bias, int smem_limit, std::vector<Candidate>* out);
void add_wgmma_candidates(const fused_conv::ConvPoolShape& s, fused_conv::Variant v, bool float_in, const void* packed,
                          const float* bias, std::vector<Candidate>* out);
void add_wgmma_pixels_candidates(const fused_conv::ConvPoolShape& s, fused_conv::Variant v, bool float_in,
                                 const void* packed, const float* bias, std::vector<Candidate>* out);

// How a kernel family runs tf32 mode: not at all, on tf32 words, or as split bf16 products (fused_conv::WordBf16x3).
enum class Tf32Words { kNone, kTf32, kSplit };

// Calls f(Word{}, TIn{}, T{}) with the operand word, input and storage types of Tensor Core variant v (TIn float
// when float_in: the graph's float32 input read by a 16-bit node); tf32 mode as kTf32 says (float in and out).
template <Tf32Words kTf32, class F>
void with_mma_types(fused_conv::Variant v, bool float_in, F&& f) {
  if (v == fused_conv::Variant::kMmaBf16) {
    if (float_in)
      f(fused_conv::WordBf16{}, float{}, __nv_bfloat16{});
    else
      f(fused_conv::WordBf16{}, __nv_bfloat16{}, __nv_bfloat16{});
  } else if (v == fused_conv::Variant::kMmaF16) {
    if (float_in)
      f(fused_conv::WordF16{}, float{}, __half{});
    else
      f(fused_conv::WordF16{}, __half{}, __half{});
  } else if (v == fused_conv::Variant::kTf32 && !float_in) {
    if constexpr (kTf32 == Tf32Words::kTf32) f(fused_conv::WordTf32{}, float{}, float{});
    if constexpr (kTf32 == Tf32Words::kSplit) f(fused_conv::WordBf16x3{}, float{}, float{});
  }
}

/// Median milliseconds of `c` on `stream`, input x, output y (3 warm-up runs, then 9).
double time_candidate(const Candidate& c, const void* x, void* y, cudaStream_t stream);

/// Times every candidate (time_candidate), records each as "ms_<name>" in `record`, and returns the fastest with
/// its time in *best_ms. `candidates` is not empty.
const Candidate& fastest(const std::vector<Candidate>& candidates, const void* x, void* y, cudaStream_t stream,
                         TuneRecord* record, double* best_ms);

/// Fills n values of type t (float32, float16 or bfloat16) at x in [0, 1): timing inputs, never zeros.
void fill_timing_values(DType t, void* x, int64_t n, cudaStream_t stream);

}  // namespace ie::fused_conv_select
