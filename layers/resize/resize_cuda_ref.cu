// Resize on the device (cuda-reference) for float32 and float16 inputs whose resized dims are among the last two
// (the usual [N, C, H, W] image resize; rank 1 too). Every mode and coordinate transform of the CPU op works,
// because the taps (up to 4 source indices and weights per output row / column: nearest 1, linear 2, cubic 4,
// tf_crop_and_resize extrapolation) are computed once at plan time by the CPU op's taps_of() and uploaded.
//
// One thread per output element, w fastest so writes coalesce. It interpolates along W first for each H tap,
// then along H, in float, skipping zero weights: the same operations in the same order as the CPU op's two
// separable passes, so results agree to rounding. Resizes that touch other dims are rejected (nullptr).
#include <algorithm>

#include "engine/registry/op_def.h"
#include "layers/common/cuda_util.cuh"
#include "layers/common/init_context.h"
#include "layers/resize/resize_setup.h"
#include "layers/resize/resize_tap_table.h"

namespace ie::cuda {
namespace {

struct ResizeArgs {
  int64_t n;  // output elements
  int32_t in_h, in_w, out_h, out_w;
  float extrapolation;
};

template <class T>
__global__ void resize_hw_kernel(const T* __restrict__ in, T* __restrict__ out, const rsz::DevTaps* __restrict__ th,
                                 const rsz::DevTaps* __restrict__ tw, ResizeArgs a) {
  for (int64_t i = grid_start<int64_t>(); i < a.n; i += grid_step<int64_t>()) {
    const int32_t x = static_cast<int32_t>(i % a.out_w);
    const int64_t rest = i / a.out_w;
    const int32_t y = static_cast<int32_t>(rest % a.out_h);
    const int64_t plane = rest / a.out_h;
    const T* base = in + plane * a.in_h * a.in_w;
    const float acc = rsz::interpolate(th[y], tw[x], a.extrapolation, [&](int iy, int ix) {
      return convert<float>(base[static_cast<int64_t>(iy) * a.in_w + ix]);
    });
    out[i] = convert<T>(acc);
  }
}

template <class T>
class ResizeKernel : public Kernel {
 public:
  ResizeKernel(const std::vector<Taps>& th, const std::vector<Taps>& tw, ResizeArgs a, cudaStream_t stream)
      : m_h(th, stream), m_w(tw, stream), m_args(a) {}
  void run(KernelContext& ctx) override {
    if (m_args.n == 0) return;
    resize_hw_kernel<T><<<grid_for(m_args.n), kThreads, 0, stream_of(ctx)>>>(
        ctx.inputs[0].as<const T>(), ctx.outputs[0].as<T>(), m_h.data(), m_w.data(), m_args);
    IE_CUDA_CHECK_LAUNCH();
  }

 private:
  TapTable m_h, m_w;
  ResizeArgs m_args;
};

std::unique_ptr<Kernel> make_resize(const KernelInit& init) {
  const ResizeSetup s = resolve_resize(InitContext(init).ctx);
  ResizePlanes planes;
  if (!resize_as_planes(s, &planes)) return nullptr;  // only the last two dims may change
  if (std::max({planes.in_h, planes.in_w, planes.out_h, planes.out_w}) > INT32_MAX) return nullptr;
  ResizeArgs a{numel_range(s.out, 0, s.out.size()), static_cast<int32_t>(planes.in_h),
               static_cast<int32_t>(planes.in_w),   static_cast<int32_t>(planes.out_h),
               static_cast<int32_t>(planes.out_w),  static_cast<float>(s.extrapolation)};
  const std::vector<Taps>& th = planes.rows;
  const std::vector<Taps>& tw = planes.cols;
  cudaStream_t stream = state_of(init.backend_state).stream;
  std::unique_ptr<Kernel> k;
  dispatch_device<float, __half>(init.inputs[0].dtype, [&](auto tag) {
    k = std::make_unique<ResizeKernel<typename decltype(tag)::type>>(th, tw, a, stream);
  });
  return k;
}

}  // namespace

IE_REGISTER_OPS(resize_cuda) { OpRegistry::get().add_kernel("", "Resize", kernel_set::kCudaReference, make_resize); }

}  // namespace ie::cuda
