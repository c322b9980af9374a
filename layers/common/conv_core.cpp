#include "layers/common/conv_core.h"

#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "engine/core/cpu_isa.h"
#include "engine/core/parallel.h"
#include "layers/common/compute_type.h"
#include "layers/common/cpu/direct_conv.h"
#include "layers/common/cpu/direct_conv_avx512.h"
#include "layers/common/gemm.h"
#include "layers/common/im2col.h"
#include "layers/common/pool_core.h"

namespace ie {

Shape ConvSetup::output_shape() const {
  Shape s{batch, out_channels};
  Shape sp = pool ? pool_window.out_shape() : conv.out_shape();
  s.insert(s.end(), sp.begin(), sp.end());
  return s;
}

double conv_flops(const ConvSetup& s) {
  return 2.0 * static_cast<double>(s.batch) * static_cast<double>(s.out_channels) *
         static_cast<double>(s.conv.out_volume()) * static_cast<double>(s.in_channels / s.group) *
         static_cast<double>(s.conv.kernel_volume());
}

ConvSetup resolve_conv(const Attributes& attrs, const Shape& x, const Shape& w, const Shape* bias,
                       const std::string& where) {
  if (x.size() < 3)
    fail_input(where, ": input X must be [N, C, spatial...] (rank >= 3), got ", shape_to_string(x));
  if (w.size() != x.size())
    fail_input(where, ": weight W ", shape_to_string(w), " must have the rank of X ", shape_to_string(x));
  ConvSetup s;
  s.batch = x[0];
  s.in_channels = x[1];
  s.out_channels = w[0];
  s.group = attrs.get_int("group", 1);
  if (s.group < 1) fail_input(where, ": group must be >= 1, got ", s.group);
  if (w[1] * s.group != s.in_channels)
    fail_input(where, ": X has ", s.in_channels, " channels but W ", shape_to_string(w), " with group ", s.group,
               " expects ", w[1] * s.group);
  if (s.out_channels % s.group != 0)
    fail_input(where, ": W's ", s.out_channels, " output channels are not divisible by group ", s.group);
  if (bias && (bias->size() != 1 || (*bias)[0] != s.out_channels))
    fail_input(where, ": bias B must be [", s.out_channels, "], got ", shape_to_string(*bias));
  s.conv = resolve_window(attrs, "", Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end()), false, where);
  return s;
}

template <class C>
void conv_forward(const ConvSetup& s, const C* x, const C* w, const C* bias, C* y) {
  const Window& g = s.conv;
  const int64_t cg = s.in_channels / s.group, mg = s.out_channels / s.group;
  const int64_t kdim = cg * g.kernel_volume(), npix = g.out_volume();
  const int64_t in_image = s.in_channels * g.in_volume();
  const int64_t conv_image = s.out_channels * npix;
  const int64_t out_image = s.pool ? s.out_channels * s.pool_window.out_volume() : conv_image;
  const bool direct = g.is_pointwise();
  // Images are split over threads, each chunk with its own scratch; a single image instead lets Eigen's
  // product use the threads.
  // The scratch is aligned to Eigen's packet size: its products peel unaligned leading elements into a scalar
  // loop, so a buffer whose alignment changed from run to run changed the rounding of a few outputs (the same
  // plan then gave other bits on its first run than on later ones).
  using Scratch = std::vector<C, Eigen::aligned_allocator<C>>;
  parallel_for(s.batch, 1, [&](int64_t begin, int64_t end) {
    Scratch col(direct ? 0 : static_cast<size_t>(s.in_channels * g.kernel_volume() * npix));
    Scratch conv_out(s.pool ? static_cast<size_t>(conv_image) : 0);
    for (int64_t n = begin; n < end; ++n) {
      const C* xi = x + n * in_image;
      if (!direct) im2col(xi, s.in_channels, g, col.data());
      const C* cols = direct ? xi : col.data();
      C* yi = s.pool ? conv_out.data() : y + n * out_image;
      for (int64_t grp = 0; grp < s.group; ++grp)
        gemm<C>(false, false, mg, npix, kdim, C(1), w + grp * mg * kdim, kdim, cols + grp * kdim * npix, npix, C(0),
                yi + grp * mg * npix, npix);
      if (bias) {
        for (int64_t m = 0; m < s.out_channels; ++m) {
          C* row = yi + m * npix;
          const C b = bias[m];
          for (int64_t p = 0; p < npix; ++p) row[p] += b;
        }
      }
      apply_activation(s.activation, yi, conv_image);
      if (s.pool) max_pool(yi, s.out_channels, s.pool_window, y + n * out_image);
    }
  });
}

template void conv_forward<float>(const ConvSetup&, const float*, const float*, const float*, float*);
template void conv_forward<double>(const ConvSetup&, const double*, const double*, const double*, double*);

namespace {

/// The direct kernel's view of a 2-D, group-1, stride-1 convolution with a ReLU or no activation and an undilated
/// max pool or none; false when the shape is not one it serves (the im2col path runs then).
bool to_direct_conv(const ConvSetup& s, cpu::DirectConvShape& d) {
  const Window& g = s.conv;
  if (g.spatial != 2 || s.group != 1 || (s.activation != Activation::None && s.activation != Activation::Relu))
    return false;
  for (int i = 1; i < kMaxSpatial; ++i)
    if (g.stride[i] != 1 || g.dilation[i] != 1) return false;
  d.in_channels = s.in_channels, d.out_channels = s.out_channels;
  d.in_h = g.in[1], d.in_w = g.in[2], d.kernel_h = g.kernel[1], d.kernel_w = g.kernel[2];
  d.pad_top = g.pad_begin[1], d.pad_left = g.pad_begin[2], d.pad_bottom = g.pad_end[1], d.pad_right = g.pad_end[2];
  d.relu = s.activation == Activation::Relu;
  d.pool = s.pool;
  if (s.pool) {
    const Window& p = s.pool_window;
    if (p.spatial != 2 || p.dilation[1] != 1 || p.dilation[2] != 1) return false;
    d.pool_h = p.kernel[1], d.pool_w = p.kernel[2], d.pool_stride_h = p.stride[1], d.pool_stride_w = p.stride[2];
    d.pool_pad_top = p.pad_begin[1], d.pool_pad_left = p.pad_begin[2];
    d.pool_out_h = p.out[1], d.pool_out_w = p.out[2];
  }
  return cpu::direct_conv_fits(d);
}

using DirectConvRowsFn = void (*)(const cpu::DirectConvShape&, const float*, const float*, const float*, float*, float*,
                                  int64_t, int64_t);

/// The direct kernel of the instruction set in force (cpu_isa(), read on each run so tests can switch it).
DirectConvRowsFn direct_conv_rows_fn() {
#if IE_DIRECT_CONV_AVX512
  if (cpu_isa() == CpuIsa::Avx512) return cpu::direct_conv_rows_avx512<>;
#endif
  return cpu::direct_conv_rows<>;
}

/// The whole batch through the direct kernel: threads over images, each with its own scratch; when there are
/// fewer images than threads, each image's output rows are split into bands too (batch-1 latency).
void direct_conv_forward(const cpu::DirectConvShape& d, int64_t batch, const float* packed, const float* x,
                         const float* bias, float* y) {
  const DirectConvRowsFn rows = direct_conv_rows_fn();
  const cpu::DirectConvLayout layout = cpu::direct_conv_layout(d);
  const int64_t threads = std::max(1, cpu_threads()), out_h = d.out_h();
  const int64_t bands = batch >= threads ? 1 : std::min(out_h, (threads + batch - 1) / batch);
  const int64_t rows_per_band = (out_h + bands - 1) / bands, units = batch * bands;
  const int64_t in_image = d.in_channels * d.in_h * d.in_w, out_image = d.out_channels * out_h * d.out_w();
  parallel_for(units, (units + threads - 1) / threads, [&](int64_t begin, int64_t end) {
    std::vector<float> scratch(static_cast<size_t>(layout.scratch_floats));
    for (int64_t u = begin; u < end; ++u) {
      const int64_t n = u / bands, r0 = (u % bands) * rows_per_band;
      rows(d, packed, bias, x + n * in_image, y + n * out_image, scratch.data(), r0,
           std::min(out_h, r0 + rows_per_band));
    }
  });
}

}  // namespace

std::unique_ptr<Kernel> make_conv_kernel(const KernelInit& init, const ConvSetup& setup) {
  const DType t = init.inputs[0].dtype;
  if (!is_float(t)) return nullptr;
  const bool has_bias = init.has_input(2);
  for (size_t i = 1; i < (has_bias ? 3u : 2u); ++i)
    if (init.inputs[i].dtype != t)
      init.fail("input ", i, " is ", dtype_name(init.inputs[i].dtype), " but X is ", dtype_name(t));
  return dispatch_float(t, init.node.label().c_str(), [&](auto tag) -> std::unique_ptr<Kernel> {
    using C = ComputeOf<typename decltype(tag)::type>;
    WeightInput<C> w_in(init, 1), b_in(init, 2);
    cpu::DirectConvShape direct;
    if constexpr (std::is_same_v<C, float>) {
      if (to_direct_conv(setup, direct)) {
        // Constant weights are packed once here; others on each run.
        std::shared_ptr<const std::vector<float>> packed;
        if (const float* w = w_in.constant())
          packed = std::make_shared<const std::vector<float>>(cpu::direct_conv_pack(direct, w));
        return make_kernel([setup, direct, packed, w_in, b_in](KernelContext& ctx) {
          ComputeBuffer<float> xs, ws, bs;
          std::vector<float> run_packed;
          const float* x = as_compute<float>(ctx.inputs[0], xs);
          const float* w = packed ? packed->data() : nullptr;
          if (!w) {
            run_packed = cpu::direct_conv_pack(direct, w_in.get(ctx, ws));
            w = run_packed.data();
          }
          ComputeOut<float> y(ctx.outputs[0]);
          direct_conv_forward(direct, setup.batch, w, x, b_in.get(ctx, bs), y.data());
          y.commit();
        });
      }
    }
    return make_kernel([setup, w_in, b_in](KernelContext& ctx) {
      ComputeBuffer<C> xs, ws, bs;
      const C* x = as_compute<C>(ctx.inputs[0], xs);
      const C* w = w_in.get(ctx, ws);
      const C* b = b_in.get(ctx, bs);
      ComputeOut<C> y(ctx.outputs[0]);
      conv_forward<C>(setup, x, w, b, y.data());
      y.commit();
    });
  });
}

}  // namespace ie
