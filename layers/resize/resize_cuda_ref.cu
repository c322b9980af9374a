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

namespace ie::cuda {
namespace {

struct DevTaps {
  int32_t index[4];
  float weight[4];
  int32_t count;  // -1: outside the crop box (extrapolation value)
};

struct ResizeArgs {
  int64_t n;  // output elements
  int32_t in_h, in_w, out_h, out_w;
  float extrapolation;
};

template <class T>
__global__ void resize_hw_kernel(const T* __restrict__ in, T* __restrict__ out, const DevTaps* __restrict__ th,
                                 const DevTaps* __restrict__ tw, ResizeArgs a) {
  for (int64_t i = grid_start<int64_t>(); i < a.n; i += grid_step<int64_t>()) {
    const int32_t x = static_cast<int32_t>(i % a.out_w);
    const int64_t rest = i / a.out_w;
    const int32_t y = static_cast<int32_t>(rest % a.out_h);
    const int64_t plane = rest / a.out_h;
    const DevTaps& ty = th[y];
    const DevTaps& tx = tw[x];
    float acc = 0.f;
    if (ty.count < 0) {
      acc = a.extrapolation;
    } else {
      const T* base = in + plane * a.in_h * a.in_w;
      for (int k = 0; k < ty.count; ++k) {
        const float wy = ty.weight[k];
        if (wy == 0.f) continue;
        float row = 0.f;
        if (tx.count < 0) {
          row = a.extrapolation;
        } else {
          const T* src = base + static_cast<int64_t>(ty.index[k]) * a.in_w;
          for (int j = 0; j < tx.count; ++j) {
            const float wx = tx.weight[j];
            if (wx != 0.f) row += wx * convert<float>(src[tx.index[j]]);
          }
        }
        acc += wy * row;
      }
    }
    out[i] = convert<T>(acc);
  }
}

/// Device copy of the taps of one dim (identity taps when the dim is unchanged); freed with the kernel.
class TapTable {
 public:
  TapTable(const std::vector<Taps>& taps, int64_t size, cudaStream_t stream) {
    std::vector<DevTaps> host(static_cast<size_t>(size));
    for (int64_t y = 0; y < size; ++y) {
      DevTaps& d = host[y];
      d = DevTaps{{static_cast<int32_t>(y), 0, 0, 0}, {1.f, 0.f, 0.f, 0.f}, 1};
      if (taps.empty()) continue;
      const Taps& t = taps[y];
      d.count = t.extrapolate ? -1 : t.count;
      for (int k = 0; k < t.count; ++k) {
        d.index[k] = static_cast<int32_t>(t.index[k]);
        d.weight[k] = static_cast<float>(t.weight[k]);
      }
    }
    const size_t bytes = std::max<size_t>(1, host.size()) * sizeof(DevTaps);
    IE_CUDA_CHECK(cudaMalloc(&m_data, bytes));
    if (!host.empty()) {
      IE_CUDA_CHECK(
          cudaMemcpyAsync(m_data, host.data(), host.size() * sizeof(DevTaps), cudaMemcpyHostToDevice, stream));
      IE_CUDA_CHECK(cudaStreamSynchronize(stream));  // plan time: `host` goes away after this
    }
  }
  ~TapTable() { cudaFree(m_data); }
  TapTable(const TapTable&) = delete;
  TapTable& operator=(const TapTable&) = delete;
  const DevTaps* data() const { return m_data; }

 private:
  DevTaps* m_data = nullptr;
};

template <class T>
class ResizeKernel : public Kernel {
 public:
  ResizeKernel(const std::vector<Taps>& th, const std::vector<Taps>& tw, ResizeArgs a, cudaStream_t stream)
      : m_h(th, a.out_h, stream), m_w(tw, a.out_w, stream), m_args(a) {}
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
  const std::vector<std::vector<Taps>> taps = axis_taps(s);
  const size_t r = s.in.size();
  // Only the last two dims may change; a leading axis whose taps read each index back with weight 1 (e.g. a
  // length-1 axis under pytorch_half_pixel) is the identity and needs no pass.
  auto identity = [](const std::vector<Taps>& t) {
    for (size_t i = 0; i < t.size(); ++i) {
      double w = 0;
      for (int k = 0; k < t[i].count; ++k)
        if (t[i].index[k] == static_cast<int64_t>(i)) w += t[i].weight[k];
        else if (t[i].weight[k] != 0) return false;
      if (t[i].extrapolate || w != 1.0) return false;
    }
    return true;
  };
  for (size_t d = 0; d + 2 < r; ++d)
    if (!taps[d].empty() && !identity(taps[d])) return nullptr;
  const int64_t in_h = r >= 2 ? s.in[r - 2] : 1, in_w = r >= 1 ? s.in[r - 1] : 1;
  const int64_t out_h = r >= 2 ? s.out[r - 2] : 1, out_w = r >= 1 ? s.out[r - 1] : 1;
  if (std::max({in_h, in_w, out_h, out_w}) > INT32_MAX) return nullptr;
  static const std::vector<Taps> kIdentity;
  const std::vector<Taps>& th = r >= 2 ? taps[r - 2] : kIdentity;
  const std::vector<Taps>& tw = r >= 1 ? taps[r - 1] : kIdentity;
  ResizeArgs a{numel_range(s.out, 0, r),    static_cast<int32_t>(in_h),  static_cast<int32_t>(in_w),
               static_cast<int32_t>(out_h), static_cast<int32_t>(out_w), static_cast<float>(s.extrapolation)};
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
