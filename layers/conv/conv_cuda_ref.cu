// Conv (and ie.FusedConv with Relu) through cuDNN. Everything is decided at plan time: descriptors, the
// algorithm (cudnnFind, timed once per shape on a device and kept in the persisted tuning cache; IE_TUNE=off takes
// cuDNN's heuristic instead), the math type (FMA only for fp32, TF32 tensor ops for "tf32") and the workspace.
// run() only launches: an optional explicit-padding kernel (cuDNN pads symmetrically, so asymmetric or SAME pads
// go through it), then one cuDNN call.
// Bias + Relu use cudnnConvolutionBiasActivationForward (any algorithm); a plain bias uses the same call with the
// identity activation when the fastest algorithm is IMPLICIT_PRECOMP_GEMM (the only one cuDNN fuses identity
// with), else cudnnConvolutionForward followed by cudnnAddTensor.
#include <algorithm>
#include <mutex>
#include <optional>
#include <sstream>

#include "engine/backend/cuda/cuda_state.h"
#include "engine/backend/cuda/cuda_tuning.h"
#include "engine/profile/tuning_cache.h"
#include "layers/common/cuda_pad.h"
#include "layers/common/cudnn_desc.h"
#include "layers/conv/conv_cudnn.h"

namespace ie {
namespace {

using cuda::ActivationDesc;
using cuda::ConvDesc;
using cuda::FilterDesc;
using cuda::TensorDesc;

// Workspace an algorithm may use: as much as PyTorch's autotuner would give it, within reason (the arena holds
// it, so it is paid for once per plan).
constexpr size_t kMaxAlgoWorkspace = size_t(2) << 30;
constexpr size_t kAlign = 256;

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

struct AlgoChoice {
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t math = CUDNN_FMA_MATH;
  size_t workspace = 0;
  double time_ms = -1;  // as cudnnFind measured it; -1 for a heuristic choice
};

// The tuning cache's name for this choice (engine/profile/tuning_cache.h).
constexpr const char* kTuneKernel = "cudnn_conv_fwd";

// The math type the problem may use: fp32 must not round through TF32.
cudnnMathType_t allowed_math(bool tf32) { return tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH; }

bool math_ok(cudnnMathType_t math, bool tf32) { return tf32 || math == CUDNN_FMA_MATH || math == CUDNN_DEFAULT_MATH; }

// The first usable entry of cuDNN's list (sorted best first): it succeeded, fits the workspace cap and keeps fp32
// out of TF32.
AlgoChoice pick(const cudnnConvolutionFwdAlgoPerf_t* perf, int count, bool tf32, bool timed, const std::string& where) {
  for (int i = 0; i < count; ++i) {
    const auto& p = perf[i];
    if (p.status != CUDNN_STATUS_SUCCESS || p.memory > kMaxAlgoWorkspace || !math_ok(p.mathType, tf32)) continue;
    return AlgoChoice{p.algo, p.mathType, p.memory, timed ? static_cast<double>(p.time) : -1.0};
  }
  fail(ErrorKind::Device, where, ": cuDNN found no usable convolution algorithm for this shape");
}

// Times every algorithm (cudnnFind) and returns the fastest usable one.
AlgoChoice search_algo(cudnnHandle_t handle, const TensorDesc& x, const FilterDesc& w, const ConvDesc& conv,
                       const TensorDesc& y, bool tf32, const std::string& where) {
  IE_CUDA_CHECK(cuda::dnn_api().cudnnSetConvolutionMathType(conv.get(), allowed_math(tf32)));
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  IE_CUDA_CHECK(cuda::dnn_api().cudnnFindConvolutionForwardAlgorithm(
      handle, x.get(), w.get(), conv.get(), y.get(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
  return pick(perf, returned, tf32, true, where);
}

// cuDNN's heuristic, for IE_TUNE=off: no timing, no file.
AlgoChoice heuristic_algo(cudnnHandle_t handle, const TensorDesc& x, const FilterDesc& w, const ConvDesc& conv,
                          const TensorDesc& y, bool tf32, const std::string& where) {
  IE_CUDA_CHECK(cuda::dnn_api().cudnnSetConvolutionMathType(conv.get(), allowed_math(tf32)));
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  IE_CUDA_CHECK(cuda::dnn_api().cudnnGetConvolutionForwardAlgorithm_v7(
      handle, x.get(), w.get(), conv.get(), y.get(), CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
  return pick(perf, returned, tf32, false, where);
}

// A stored winner, if this cuDNN still accepts it for the problem (an upgrade may drop an algorithm) and it fits
// today's rules; nullopt sends the caller to time again.
std::optional<AlgoChoice> from_record(const TuneRecord& r, cudnnHandle_t handle, const TensorDesc& x,
                                      const FilterDesc& w, const ConvDesc& conv, const TensorDesc& y, bool tf32) {
  const auto algo = r.number("algo"), math = r.number("math"), workspace = r.number("workspace");
  if (!algo || !math || !workspace || *algo < 0 || *algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT || *workspace < 0 ||
      *workspace > kMaxAlgoWorkspace)
    return std::nullopt;
  const auto m = static_cast<cudnnMathType_t>(static_cast<int>(*math));
  if (m != CUDNN_DEFAULT_MATH && m != CUDNN_TENSOR_OP_MATH && m != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION &&
      m != CUDNN_FMA_MATH)
    return std::nullopt;
  if (!math_ok(m, tf32) || cuda::dnn_api().cudnnSetConvolutionMathType(conv.get(), m) != CUDNN_STATUS_SUCCESS)
    return std::nullopt;
  AlgoChoice c{static_cast<cudnnConvolutionFwdAlgo_t>(static_cast<int>(*algo)), m, 0,
               r.number("time_ms").value_or(-1.0)};
  size_t need = 0;
  if (cuda::dnn_api().cudnnGetConvolutionForwardWorkspaceSize(handle, x.get(), w.get(), conv.get(), y.get(), c.algo,
                                                              &need) != CUDNN_STATUS_SUCCESS ||
      need > kMaxAlgoWorkspace)
    return std::nullopt;
  c.workspace = std::max(need, static_cast<size_t>(*workspace));
  return c;
}

// The algorithm of one problem: IE_TUNE=off takes cuDNN's heuristic; otherwise the device's tuning cache answers,
// and a miss (or IE_TUNE=search) times every algorithm once and stores the winner.
AlgoChoice choose_algo(const cuda::CudaState& st, const std::string& shape, const TensorDesc& x, const FilterDesc& w,
                       const ConvDesc& conv, const TensorDesc& y, const std::string& where) {
  // One problem at a time: timings on one GPU at once disturb each other, and a second session planning the same
  // shape then finds the first one's winner instead of timing again.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const bool tf32 = st.tf32();
  const std::string precision = precision_name(st.precision);
  if (tune_mode() == TuneMode::Off) return heuristic_algo(st.cudnn(), x, w, conv, y, tf32, where);
  TuningCache& cache = tuning_cache_for(cuda::tuning_device_key(st));
  if (std::optional<TuneRecord> hit = cache.lookup(kTuneKernel, shape, precision))
    if (std::optional<AlgoChoice> c = from_record(*hit, st.cudnn(), x, w, conv, y, tf32)) return *c;
  AlgoChoice c = search_algo(st.cudnn(), x, w, conv, y, tf32, where);
  TuneRecord winner;
  winner.set("algo", static_cast<double>(c.algo))
      .set("math", static_cast<double>(c.math))
      .set("workspace", static_cast<double>(c.workspace))
      .set("time_ms", c.time_ms);
  cache.store(kTuneKernel, shape, precision, winner);
  return c;
}

class CudnnConvKernel : public Kernel {
 public:
  CudnnConvKernel(const KernelInit& init, const ConvSetup& s) : m_relu(s.activation == Activation::Relu) {
    cuda::CudaState& st = cuda::state_of(init.backend_state);
    m_handle = st.cudnn();
    m_has_bias = init.has_input(2);
    const Window& g = s.conv;  // 2-D problems use dims 1 and 2 of the promoted window (dim 0 is a unit dim)
    int64_t in_h = g.in[1], in_w = g.in[2];
    int64_t pad[2] = {g.pad_begin[1], g.pad_begin[2]};
    // cuDNN pads both sides equally: when that does not give ONNX's output size, pad explicitly instead.
    bool symmetric_ok = true;
    int64_t padded[2] = {in_h, in_w}, end_pad[2] = {0, 0};
    for (int d = 0; d < 2; ++d) {
      const int64_t in = g.in[1 + d], k = g.kernel[1 + d], st_ = g.stride[1 + d], dil = g.dilation[1 + d];
      const int64_t eff = (k - 1) * dil + 1, pb = g.pad_begin[1 + d], out = g.out[1 + d];
      if ((in + 2 * pb - eff) / st_ + 1 != out || in + 2 * pb < eff) symmetric_ok = false;
      end_pad[d] = std::max<int64_t>(0, (out - 1) * st_ + eff - in - pb);
      padded[d] = in + pb + end_pad[d];
    }
    if (!symmetric_ok) {
      m_pad = true;
      m_pad_geo = cuda::PadPlanes{s.batch * s.in_channels, in_h, in_w, padded[0], padded[1], pad[0], pad[1]};
      in_h = padded[0], in_w = padded[1];
      pad[0] = pad[1] = 0;
    }
    if (!cuda::fits_int({s.batch * s.in_channels * in_h * in_w, s.batch * s.out_channels * g.out_volume()}))
      init.fail("tensor too large for cuDNN's 32-bit sizes");
    m_x = cuda::nchw_desc(s.batch, s.in_channels, in_h, in_w);
    m_y = cuda::nchw_desc(s.batch, s.out_channels, g.out[1], g.out[2]);
    IE_CUDA_CHECK(cuda::dnn_api().cudnnSetFilter4dDescriptor(
        m_w.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, static_cast<int>(s.out_channels),
        static_cast<int>(s.in_channels / s.group), static_cast<int>(g.kernel[1]), static_cast<int>(g.kernel[2])));
    IE_CUDA_CHECK(cuda::dnn_api().cudnnSetConvolution2dDescriptor(
        m_conv.get(), static_cast<int>(pad[0]), static_cast<int>(pad[1]), static_cast<int>(g.stride[1]),
        static_cast<int>(g.stride[2]), static_cast<int>(g.dilation[1]), static_cast<int>(g.dilation[2]),
        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    IE_CUDA_CHECK(cuda::dnn_api().cudnnSetConvolutionGroupCount(m_conv.get(), static_cast<int>(s.group)));
    IE_CUDA_CHECK(
        cuda::dnn_api().cudnnSetConvolutionMathType(m_conv.get(), st.tf32() ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
    int dims[4];
    IE_CUDA_CHECK(cuda::dnn_api().cudnnGetConvolution2dForwardOutputDim(m_conv.get(), m_x.get(), m_w.get(), dims,
                                                                        dims + 1, dims + 2, dims + 3));
    if (dims[2] != g.out[1] || dims[3] != g.out[2])
      init.fail("cuDNN's conv output ", dims[2], "x", dims[3], " differs from the inferred ", g.out[1], "x",
                g.out[2]);

    // The problem as the tuning cache keys it (the device and precision are keyed apart): N,C,H,W / K,R,S /
    // pads / strides / dilations / groups.
    std::ostringstream shape;
    shape << s.batch << ',' << s.in_channels << ',' << in_h << ',' << in_w << '/' << s.out_channels << ','
          << g.kernel[1] << ',' << g.kernel[2] << '/' << pad[0] << ',' << pad[1] << '/' << g.stride[1] << ','
          << g.stride[2] << '/' << g.dilation[1] << ',' << g.dilation[2] << '/' << s.group;
    AlgoChoice c = choose_algo(st, shape.str(), m_x, m_w, m_conv, m_y, init.node.label());
    m_algo = c.algo;
    IE_CUDA_CHECK(cuda::dnn_api().cudnnSetConvolutionMathType(m_conv.get(), c.math));
    size_t ws = 0;
    IE_CUDA_CHECK(cuda::dnn_api().cudnnGetConvolutionForwardWorkspaceSize(m_handle, m_x.get(), m_w.get(), m_conv.get(),
                                                                          m_y.get(), m_algo, &ws));
    m_algo_workspace = std::max(ws, c.workspace);

    m_fused = m_has_bias && (m_relu || m_algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
    if (m_has_bias) m_bias = cuda::nchw_desc(1, s.out_channels, 1, 1);
    if (m_relu || m_fused)
      IE_CUDA_CHECK(cuda::dnn_api().cudnnSetActivationDescriptor(
          m_act.get(), m_relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  }

  size_t workspace_bytes() const override {
    return align_up(m_algo_workspace) + (m_pad ? static_cast<size_t>(m_pad_geo.out_elems()) * sizeof(float) : 0);
  }

  void run(KernelContext& ctx) override {
    const float one = 1.f, zero = 0.f;
    const void* x = ctx.inputs[0].data;
    const void* w = ctx.inputs[1].data;
    void* y = ctx.outputs[0].data;
    char* ws = static_cast<char*>(ctx.workspace);
    if (m_pad) {
      float* padded = reinterpret_cast<float*>(ws + align_up(m_algo_workspace));
      cuda::pad_planes(static_cast<const float*>(x), padded, m_pad_geo, 0.f, ctx.stream);
      x = padded;
    }
    void* algo_ws = m_algo_workspace ? ws : nullptr;
    if (m_fused) {
      // z = y with alpha2 = 0: cuDNN reads no residual.
      IE_CUDA_CHECK(cuda::dnn_api().cudnnConvolutionBiasActivationForward(
          m_handle, &one, m_x.get(), x, m_w.get(), w, m_conv.get(), m_algo, algo_ws, m_algo_workspace, &zero, m_y.get(),
          y, m_bias.get(), ctx.inputs[2].data, m_act.get(), m_y.get(), y));
      return;
    }
    IE_CUDA_CHECK(cuda::dnn_api().cudnnConvolutionForward(m_handle, &one, m_x.get(), x, m_w.get(), w, m_conv.get(),
                                                          m_algo, algo_ws, m_algo_workspace, &zero, m_y.get(), y));
    if (m_has_bias)
      IE_CUDA_CHECK(
          cuda::dnn_api().cudnnAddTensor(m_handle, &one, m_bias.get(), ctx.inputs[2].data, &one, m_y.get(), y));
    if (m_relu)
      IE_CUDA_CHECK(
          cuda::dnn_api().cudnnActivationForward(m_handle, m_act.get(), &one, m_y.get(), y, &zero, m_y.get(), y));
  }

 private:
  cudnnHandle_t m_handle = nullptr;
  bool m_relu = false, m_has_bias = false, m_fused = false, m_pad = false;
  cuda::PadPlanes m_pad_geo;
  TensorDesc m_x, m_y, m_bias;
  FilterDesc m_w;
  ConvDesc m_conv;
  ActivationDesc m_act;
  cudnnConvolutionFwdAlgo_t m_algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t m_algo_workspace = 0;
};

std::unique_ptr<Kernel> make_conv_cuda(const KernelInit& init) {
  const bool has_bias = init.has_input(2);
  ConvSetup s = resolve_conv(init.node.attrs, init.inputs[0].shape, init.inputs[1].shape,
                             has_bias ? &init.inputs[2].shape : nullptr, init.node.label());
  return make_cudnn_conv(init, s);
}

}  // namespace

bool cudnn_conv_supports(const ConvSetup& s) {
  return s.conv.spatial <= 2 && !s.pool && (s.activation == Activation::None || s.activation == Activation::Relu);
}

std::unique_ptr<Kernel> make_cudnn_conv(const KernelInit& init, const ConvSetup& setup) {
  if (!cudnn_conv_supports(setup)) return nullptr;
  for (const TensorInfo& t : init.inputs)
    if (t.dtype != DType::Undefined && t.dtype != DType::Float32) return nullptr;
  return std::make_unique<CudnnConvKernel>(init, setup);
}

IE_REGISTER_OPS(conv_cuda) { OpRegistry::get().add_kernel("", "Conv", kernel_set::kCudaReference, make_conv_cuda); }

}  // namespace ie
