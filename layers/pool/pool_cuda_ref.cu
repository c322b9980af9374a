// MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool (1-D and 2-D, float32) on "cuda-reference" through
// cudnnPoolingForward. cuDNN pads both sides of a dim equally and computes floor-mode output sizes, so a window
// that ONNX pads asymmetrically or extends by ceil_mode goes through an explicit padding kernel first (filled
// with the lowest float for max, zero for average; then cuDNN runs unpadded). An average over such a padded
// input divides by the full window, so a second small kernel (one thread per output element, grid-stride)
// rescales each output to ONNX's count (valid taps, or with count_include_pad the taps inside the pads).
// Rejected: dilations != 1, the Indices output, 3-D, dtypes other than float32.
#include <algorithm>
#include <cfloat>

#include "engine/backend/cuda/cuda_state.h"
#include "layers/common/cuda_pad.h"
#include "layers/common/cudnn_desc.h"
#include "layers/pool/pool_setup.h"

namespace ie {
namespace {

// Per spatial dim (h, w) the geometry the rescale kernel needs.
struct AverageGeometry {
  int64_t in[2], out[2], kernel[2], stride[2], pad_begin[2], pad_end[2];
  bool include_pad;
};

__device__ int64_t taps_counted(const AverageGeometry& g, int d, int64_t o) {
  const int64_t first = o * g.stride[d] - g.pad_begin[d];
  const int64_t lo = g.include_pad ? -g.pad_begin[d] : 0, hi = g.include_pad ? g.in[d] + g.pad_end[d] : g.in[d];
  const int64_t b = first > lo ? first : lo, e = first + g.kernel[d] < hi ? first + g.kernel[d] : hi;
  return e > b ? e - b : 0;
}

__global__ void rescale_average(float* __restrict__ y, int64_t total, AverageGeometry g) {
  const float window = static_cast<float>(g.kernel[0] * g.kernel[1]);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.out[1], oh = (i / g.out[1]) % g.out[0];
    const int64_t count = taps_counted(g, 0, oh) * taps_counted(g, 1, ow);
    y[i] = count > 0 ? y[i] * (window / static_cast<float>(count)) : 0.f;
  }
}

class CudnnPoolKernel : public Kernel {
 public:
  CudnnPoolKernel(const KernelInit& init, const PoolSetup& s) {
    m_handle = cuda::state_of(init.backend_state).cudnn();
    const Window& w = s.window;
    const bool is_max = s.kind == PoolKind::Max || s.kind == PoolKind::GlobalMax;
    int64_t in_h = w.in[1], in_w = w.in[2];
    int64_t pad[2] = {w.pad_begin[1], w.pad_begin[2]};
    bool direct = true;
    int64_t padded[2];
    for (int d = 0; d < 2; ++d) {
      const int64_t in = w.in[1 + d], k = w.kernel[1 + d], st = w.stride[1 + d], pb = w.pad_begin[1 + d];
      const int64_t out = w.out[1 + d];
      if (in + 2 * pb < k || (in + 2 * pb - k) / st + 1 != out) direct = false;
      // With count_include_pad cuDNN divides by the whole window, ONNX by the taps inside the pads.
      if (!is_max && s.count_include_pad && (out - 1) * st - pb + k > in + w.pad_end[1 + d]) direct = false;
      padded[d] = in + pb + std::max<int64_t>(0, (out - 1) * st + k - in - pb);
    }
    cudnnPoolingMode_t mode = is_max ? CUDNN_POOLING_MAX
                                     : (s.count_include_pad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                            : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING);
    if (!direct) {
      m_pad = true;
      m_pad_fill = is_max ? -FLT_MAX : 0.f;
      m_pad_geo = cuda::PadPlanes{s.batch * s.channels, in_h, in_w, padded[0], padded[1], pad[0], pad[1]};
      in_h = padded[0], in_w = padded[1];
      pad[0] = pad[1] = 0;
      if (!is_max) {
        mode = CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
        m_rescale = true;
        m_avg = AverageGeometry{{w.in[1], w.in[2]},           {w.out[1], w.out[2]},
                                {w.kernel[1], w.kernel[2]},   {w.stride[1], w.stride[2]},
                                {w.pad_begin[1], w.pad_begin[2]}, {w.pad_end[1], w.pad_end[2]},
                                s.count_include_pad};
      }
    }
    m_out_elems = s.batch * s.channels * w.out_volume();
    if (!cuda::fits_int({s.batch * s.channels * in_h * in_w, m_out_elems, w.kernel[1], w.kernel[2]}))
      init.fail("tensor too large for cuDNN's 32-bit sizes");
    m_x = cuda::nchw_desc(s.batch, s.channels, in_h, in_w);
    m_y = cuda::nchw_desc(s.batch, s.channels, w.out[1], w.out[2]);
    IE_CUDA_CHECK(cuda::dnn_api().cudnnSetPooling2dDescriptor(
        m_pool.get(), mode, CUDNN_PROPAGATE_NAN, static_cast<int>(w.kernel[1]), static_cast<int>(w.kernel[2]),
        static_cast<int>(pad[0]), static_cast<int>(pad[1]), static_cast<int>(w.stride[1]),
        static_cast<int>(w.stride[2])));
    int dims[4];
    IE_CUDA_CHECK(
        cuda::dnn_api().cudnnGetPooling2dForwardOutputDim(m_pool.get(), m_x.get(), dims, dims + 1, dims + 2, dims + 3));
    if (dims[2] != w.out[1] || dims[3] != w.out[2])
      init.fail("cuDNN's pooling output ", dims[2], "x", dims[3], " differs from the inferred ", w.out[1], "x",
                w.out[2]);
  }

  size_t workspace_bytes() const override {
    return m_pad ? static_cast<size_t>(m_pad_geo.out_elems()) * sizeof(float) : 0;
  }

  void run(KernelContext& ctx) override {
    const float one = 1.f, zero = 0.f;
    const void* x = ctx.inputs[0].data;
    float* y = ctx.outputs[0].as<float>();
    if (m_pad) {
      cuda::pad_planes(static_cast<const float*>(x), static_cast<float*>(ctx.workspace), m_pad_geo, m_pad_fill,
                       ctx.stream);
      x = ctx.workspace;
    }
    IE_CUDA_CHECK(cuda::dnn_api().cudnnPoolingForward(m_handle, m_pool.get(), &one, m_x.get(), x, &zero, m_y.get(), y));
    if (m_rescale && m_out_elems > 0) {
      constexpr int kThreads = 256;
      rescale_average<<<cuda::blocks_for(m_out_elems, kThreads), kThreads, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
          y, m_out_elems, m_avg);
      IE_CUDA_CHECK_LAUNCH();
    }
  }

 private:
  cudnnHandle_t m_handle = nullptr;
  cuda::TensorDesc m_x, m_y;
  cuda::PoolDesc m_pool;
  bool m_pad = false, m_rescale = false;
  float m_pad_fill = 0.f;
  cuda::PadPlanes m_pad_geo;
  AverageGeometry m_avg{};
  int64_t m_out_elems = 0;
};

bool pool_cuda_supports(const Node& node) {
  if (node.outputs.size() > 1 && !node.outputs[1].empty()) return false;  // Indices
  for (int64_t d : node.attrs.get_ints("dilations", {}))
    if (d != 1) return false;
  return true;
}

template <PoolKind kKind>
std::unique_ptr<Kernel> make_pool_cuda(const KernelInit& init) {
  if (!pool_cuda_supports(init.node) || init.inputs[0].dtype != DType::Float32) return nullptr;
  PoolSetup s = resolve_pool(init.node, kKind, init.inputs[0]);
  if (s.window.spatial > 2) return nullptr;
  return std::make_unique<CudnnPoolKernel>(init, s);
}

}  // namespace

IE_REGISTER_OPS(pool_cuda) {
  auto& r = OpRegistry::get();
  r.add_kernel("", "MaxPool", kernel_set::kCudaReference, make_pool_cuda<PoolKind::Max>, pool_cuda_supports);
  r.add_kernel("", "AveragePool", kernel_set::kCudaReference, make_pool_cuda<PoolKind::Average>, pool_cuda_supports);
  r.add_kernel("", "GlobalMaxPool", kernel_set::kCudaReference, make_pool_cuda<PoolKind::GlobalMax>);
  r.add_kernel("", "GlobalAveragePool", kernel_set::kCudaReference, make_pool_cuda<PoolKind::GlobalAverage>);
}

}  // namespace ie
