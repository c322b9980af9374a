// Resize (ONNX 10-19): nearest, linear and cubic interpolation over any dims, applied one axis at a time
// (the interpolation is separable), with every coordinate_transformation_mode and nearest_mode.
// Scales/sizes/roi must be known at plan time. antialias is not supported.
// ie.ScaledResize (rule scaled_resize): Resize(view(Cast(X) * factor)) of an 8- or 16-bit integer X, read in one
// pass; resize_setup.h lists its attributes.
#include <cmath>

#include "engine/core/parallel.h"
#include "engine/registry/op_def.h"
#include "layers/common/compute_type.h"
#include "layers/common/init_context.h"
#include "layers/resize/resize_pairs_cpu.h"
#include "layers/resize/resize_setup.h"

namespace ie {
namespace {

std::vector<double> constant_floats(const InferContext& ctx, size_t i, const char* what) {
  const Tensor* t = &ctx.require_constant(i, what);
  std::vector<double> v(static_cast<size_t>(t->numel()));
  dispatch_float(t->dtype(), what, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(static_cast<float>(t->data_as<T>()[k]));
  });
  return v;
}

bool given(const InferContext& ctx, size_t i) {
  return ctx.has_input(i) && !ctx.input(i).shape.empty() && checked_numel(ctx.input(i).shape) > 0;
}

}  // namespace

ResizeSetup resolve_resize(const InferContext& ctx, const Shape* in) {
  const Attributes& a = ctx.attrs();
  ResizeSetup s;
  s.in = in ? *in : ctx.input(0).shape;
  const size_t r = s.in.size();
  const std::string mode = a.get_string("mode", "nearest");
  if (mode == "nearest")
    s.mode = ResizeMode::Nearest;
  else if (mode == "linear")
    s.mode = ResizeMode::Linear;
  else if (mode == "cubic" && ctx.opset() >= 11)
    s.mode = ResizeMode::Cubic;
  else
    ctx.fail("mode '", mode, "' is not supported (expected nearest, linear or cubic)");
  ctx.expect(a.get_int("antialias", 0) == 0, "antialias = 1 is not supported");
  if (ctx.opset() < 11) {
    s.transform = "asymmetric";
    s.nearest_mode = "floor";
  } else {
    s.transform = a.get_string("coordinate_transformation_mode", "half_pixel");
    s.nearest_mode = a.get_string("nearest_mode", "round_prefer_floor");
  }
  static const char* kTransforms[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                                      "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  ctx.expect(std::find(std::begin(kTransforms), std::end(kTransforms), s.transform) != std::end(kTransforms),
             "unknown coordinate_transformation_mode '", s.transform, "'");
  static const char* kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  ctx.expect(std::find(std::begin(kNearest), std::end(kNearest), s.nearest_mode) != std::end(kNearest),
             "unknown nearest_mode '", s.nearest_mode, "'");
  s.cubic_a = a.get_float("cubic_coeff_a", -0.75f);
  s.exclude_outside = a.get_int("exclude_outside", 0) != 0;
  s.extrapolation = a.get_float("extrapolation_value", 0.0f);

  // Axes the scales/sizes/roi refer to (opset 18); all dims by default.
  std::vector<int64_t> axes = a.get_ints("axes");
  if (axes.empty())
    for (size_t d = 0; d < r; ++d) axes.push_back(static_cast<int64_t>(d));
  for (auto& ax : axes) ax = normalize_axis(ax, static_cast<int64_t>(r), ctx.node().label());
  const size_t scales_i = ctx.opset() < 11 ? 1 : 2, sizes_i = 3;
  s.scales.assign(r, 1.0);
  s.out = s.in;
  if (ctx.opset() >= 11 && given(ctx, sizes_i)) {
    ctx.expect(!given(ctx, scales_i), "give scales or sizes, not both");
    auto sizes = ctx.constant_ints(sizes_i, "sizes");
    ctx.expect(sizes.size() == axes.size(), "sizes has ", sizes.size(), " values, expected ", axes.size());
    for (size_t i = 0; i < axes.size(); ++i) s.out[axes[i]] = sizes[i];
    for (size_t d = 0; d < r; ++d) s.scales[d] = static_cast<double>(s.out[d]) / static_cast<double>(s.in[d]);
    const std::string policy = a.get_string("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch") {
      ctx.expect(policy == "not_larger" || policy == "not_smaller", "unknown keep_aspect_ratio_policy '", policy, "'");
      double scale = s.scales[axes[0]];
      for (auto ax : axes)
        scale = policy == "not_larger" ? std::min(scale, s.scales[ax]) : std::max(scale, s.scales[ax]);
      for (auto ax : axes) {
        s.scales[ax] = scale;
        const double out = scale * static_cast<double>(s.in[ax]) + 0.5;
        ctx.expect(std::isfinite(out) && out < 4.6e18, "keep_aspect_ratio_policy gives an output dim beyond 64 bits");
        s.out[ax] = static_cast<int64_t>(out);
      }
    }
  } else {
    ctx.expect(given(ctx, scales_i), "one of scales or sizes is required");
    auto scales = constant_floats(ctx, scales_i, "scales");
    ctx.expect(scales.size() == axes.size(), "scales has ", scales.size(), " values, expected ", axes.size());
    for (size_t i = 0; i < axes.size(); ++i) {
      ctx.expect(scales[i] > 0, "scales must be positive, got ", scales[i]);
      s.scales[axes[i]] = scales[i];
      const double out = scales[i] * static_cast<double>(s.in[axes[i]]);
      // A model's scale may be huge or infinite; casting such a product to int64 would be undefined.
      ctx.expect(std::isfinite(out) && out < 4.6e18, "scale ", scales[i], " on axis ", axes[i],
                 " gives an output dim beyond 64 bits");
      s.out[axes[i]] = static_cast<int64_t>(out);
    }
  }
  if (s.transform == "tf_crop_and_resize") {
    ctx.expect(ctx.opset() >= 11 && given(ctx, 1), "tf_crop_and_resize needs the roi input");
    auto roi = constant_floats(ctx, 1, "roi");
    ctx.expect(roi.size() == 2 * axes.size(), "roi has ", roi.size(), " values, expected ", 2 * axes.size());
    s.roi.assign(2 * r, 0.0);
    for (size_t d = 0; d < r; ++d) s.roi[r + d] = 1.0;
    for (size_t i = 0; i < axes.size(); ++i) {
      s.roi[axes[i]] = roi[i];
      s.roi[r + axes[i]] = roi[axes.size() + i];
    }
  }
  return s;
}

bool scaled_resize_input(DType dtype) {
  return dtype == DType::UInt8 || dtype == DType::Int8 || dtype == DType::UInt16 || dtype == DType::Int16;
}

DType scaled_resize_output(const Node& node) {
  return static_cast<DType>(node.attrs.get_int("to", static_cast<int64_t>(DType::Float32)));
}

Shape scaled_resize_input_shape(const InferContext& ctx) {
  const Shape& x = ctx.input(0).shape;
  if (!ctx.attrs().has("input_shape")) return x;
  const Shape seen = ctx.attrs().get_ints("input_shape");
  for (int64_t d : seen) ctx.expect(d >= 0, "input_shape ", shape_to_string(seen), " has a negative dim");
  ctx.expect(checked_numel(seen) == checked_numel(x), "input_shape ", shape_to_string(seen), " does not hold X's ",
             shape_to_string(x), " elements");
  return seen;
}

ScaledInput scaled_input_of(const Node& node) {
  ScaledInput s;
  s.integer = true;
  s.factor = node.attrs.get_float("input_factor", 1.f);
  s.divide = node.attrs.get_int("input_divide", 0) != 0;
  return s;
}

namespace {

void infer_resize(InferContext& ctx) {
  ctx.expect(is_float(ctx.input(0).dtype), "X must be a float tensor, got ", dtype_name(ctx.input(0).dtype));
  ctx.set_output(0, ctx.input(0).dtype, resolve_resize(ctx).out);
}

double source_coordinate(const ResizeSetup& s, size_t d, int64_t y) {
  const double in = static_cast<double>(s.in[d]), scale = s.scales[d], length = scale * in;
  const double yf = static_cast<double>(y);
  const std::string& t = s.transform;
  if (t == "align_corners") return length == 1 ? 0.0 : yf * (in - 1) / (length - 1);
  if (t == "asymmetric") return yf / scale;
  if (t == "tf_half_pixel_for_nn") return (yf + 0.5) / scale;
  if (t == "pytorch_half_pixel") return length == 1 ? -0.5 : (yf + 0.5) / scale - 0.5;
  if (t == "half_pixel_symmetric") {
    const double center = in / 2, adjustment = static_cast<double>(s.out[d]) / length;
    return center * (1 - adjustment) + (yf + 0.5) / scale - 0.5;
  }
  if (t == "tf_crop_and_resize") {
    const size_t r = s.in.size();
    const double start = s.roi[d], end = s.roi[r + d];
    double x = length == 1 ? (end - start) * (in - 1) / 2 : yf * (end - start) * (in - 1) / (length - 1);
    return x + start * (in - 1);
  }
  return (yf + 0.5) / scale - 0.5;  // half_pixel
}

}  // namespace

Taps taps_of(const ResizeSetup& s, size_t d, int64_t y) {
  Taps t;
  const double x = source_coordinate(s, d, y);
  const int64_t in = s.in[d];
  if (s.transform == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(in - 1))) {
    t.extrapolate = true;
    return t;
  }
  // The left neighbour and the ratio in (0, 1]: an exact integer x counts as ratio 1 from its left neighbour.
  const int64_t left = static_cast<int64_t>(std::ceil(x)) - 1;
  const double ratio = x - static_cast<double>(left);
  auto clamp = [in](int64_t i) { return std::min<int64_t>(std::max<int64_t>(i, 0), in - 1); };
  if (s.mode == ResizeMode::Nearest) {
    bool right = ratio == 1.0;
    if (!right) {
      const std::string& m = s.nearest_mode;
      right = m == "ceil" || (m == "round_prefer_floor" && ratio > 0.5) || (m == "round_prefer_ceil" && ratio >= 0.5);
    }
    t.count = 1;
    t.index[0] = clamp(left + (right ? 1 : 0));
    t.weight[0] = 1;
    return t;
  }
  int64_t first = left;
  if (s.mode == ResizeMode::Linear) {
    t.count = 2;
    t.weight[0] = 1 - ratio;
    t.weight[1] = ratio;
  } else {
    const double a = s.cubic_a, r1 = ratio + 1, r2 = 1 - ratio, r3 = 2 - ratio;
    t.count = 4;
    first = left - 1;
    t.weight[0] = ((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a;
    t.weight[1] = ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1;
    t.weight[2] = ((a + 2) * r2 - (a + 3)) * r2 * r2 + 1;
    t.weight[3] = ((a * r3 - 5 * a) * r3 + 8 * a) * r3 - 4 * a;
  }
  double sum = 0;
  for (int k = 0; k < t.count; ++k) {
    const int64_t i = first + k;
    if (s.exclude_outside && (i < 0 || i >= in)) t.weight[k] = 0;
    sum += t.weight[k];
    t.index[k] = clamp(i);
  }
  if (s.exclude_outside && sum != 0)
    for (int k = 0; k < t.count; ++k) t.weight[k] /= sum;
  return t;
}

std::vector<std::vector<Taps>> axis_taps(const ResizeSetup& s) {
  std::vector<std::vector<Taps>> taps(s.in.size());
  for (size_t d = 0; d < s.in.size(); ++d) {
    bool identity = s.out[d] == s.in[d];
    std::vector<Taps> td;
    for (int64_t y = 0; y < s.out[d]; ++y) {
      td.push_back(taps_of(s, d, y));
      const Taps& t = td.back();
      identity = identity && !t.extrapolate && t.count >= 1 && [&] {
        for (int k = 0; k < t.count; ++k)
          if (t.weight[k] != 0 && (t.index[k] != y || t.weight[k] != 1)) return false;
        return true;
      }();
    }
    if (!identity) taps[d] = std::move(td);
  }
  return taps;
}

bool resize_as_planes(const ResizeSetup& s, ResizePlanes* planes) {
  const std::vector<std::vector<Taps>> taps = axis_taps(s);
  const size_t r = s.in.size();
  auto identity = [](const std::vector<Taps>& t) {
    for (size_t i = 0; i < t.size(); ++i) {
      double w = 0;
      for (int k = 0; k < t[i].count; ++k)
        if (t[i].index[k] == static_cast<int64_t>(i))
          w += t[i].weight[k];
        else if (t[i].weight[k] != 0)
          return false;
      if (t[i].extrapolate || w != 1.0) return false;
    }
    return true;
  };
  for (size_t d = 0; d + 2 < r; ++d)
    if (!taps[d].empty() && !identity(taps[d])) return false;
  ResizePlanes p;
  p.planes = r >= 2 ? numel_range(s.in, 0, r - 2) : 1;
  p.in_h = r >= 2 ? s.in[r - 2] : 1;
  p.in_w = r >= 1 ? s.in[r - 1] : 1;
  p.out_h = r >= 2 ? s.out[r - 2] : 1;
  p.out_w = r >= 1 ? s.out[r - 1] : 1;
  auto of_axis = [&](int64_t d, int64_t size) {
    if (d >= 0 && !taps[static_cast<size_t>(d)].empty()) return taps[static_cast<size_t>(d)];
    std::vector<Taps> same(static_cast<size_t>(size));
    for (int64_t y = 0; y < size; ++y) {
      same[static_cast<size_t>(y)].count = 1;
      same[static_cast<size_t>(y)].index[0] = y;
      same[static_cast<size_t>(y)].weight[0] = 1;
    }
    return same;
  };
  p.rows = of_axis(static_cast<int64_t>(r) - 2, p.out_h);
  p.cols = of_axis(static_cast<int64_t>(r) - 1, p.out_w);
  *planes = std::move(p);
  return true;
}

namespace {

// Resamples dim `d` of `src` (shape `cur`) into `dst`, where cur[d] becomes s.out[d].
template <class C>
void resize_axis(const ResizeSetup& s, size_t d, const Shape& cur, const std::vector<Taps>& taps, const C* src,
                 C* dst) {
  const int64_t outer = numel_range(cur, 0, d), inner = numel_range(cur, d + 1, cur.size());
  const int64_t in = cur[d], out = s.out[d];
  parallel_for(outer * out, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, inner)), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t o = row / out, y = row % out;
      const Taps& t = taps[y];
      C* dr = dst + row * inner;
      if (t.extrapolate) {
        std::fill(dr, dr + inner, static_cast<C>(s.extrapolation));
        continue;
      }
      const C* base = src + o * in * inner;
      std::fill(dr, dr + inner, C(0));
      for (int k = 0; k < t.count; ++k) {
        const C w = static_cast<C>(t.weight[k]);
        if (w == C(0)) continue;
        const C* sr = base + t.index[k] * inner;
        for (int64_t i = 0; i < inner; ++i) dr[i] += w * sr[i];
      }
    }
  });
}

// X (an integer tensor) as C, each value converted to float and scaled as the Cast and the Mul or Div that
// ie.ScaledResize replaces compute it in float32, then widened to C.
template <class C>
const C* scaled_input(const TensorRef& x, const ScaledInput& s, ComputeBuffer<C>& store) {
  const int64_t n = x.numel();
  store.resize(static_cast<size_t>(n));
  dispatch_numeric(x.dtype, "ie.ScaledResize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.as<const T>();
    C* dst = store.data();
    parallel_for(n, 1 << 15, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const float v = static_cast<float>(src[i]);
        dst[i] = static_cast<C>(s.divide ? v / s.factor : v * s.factor);
      }
    });
  });
  return store.data();
}

// The CPU kernel of Resize and ie.ScaledResize: X read as the output's compute type C (integers scaled, as
// scaled_input says), then resampled one axis at a time.
std::unique_ptr<Kernel> make_planes_cpu(const ResizeSetup& s, DType out_dtype, const ScaledInput& scaled) {
  const std::vector<std::vector<Taps>> taps = axis_taps(s);
  return dispatch_float(out_dtype, "Resize", [&](auto tag) -> std::unique_ptr<Kernel> {
    using C = ComputeOf<typename decltype(tag)::type>;
    // Image-style resizes (the last two dims, taps of at most two positions) run plane by plane.
    ResizePlanes planes;
    std::vector<PairTapsCpu<C>> rows, cols;
    const bool by_planes =
        resize_as_planes(s, &planes) && pair_taps_cpu(planes.rows, &rows) && pair_taps_cpu(planes.cols, &cols);
    return make_kernel([s, taps, scaled, by_planes, planes, rows, cols](KernelContext& ctx) {
      ComputeBuffer<C> xs, a, b;
      const C* cur_data =
          scaled.integer ? scaled_input<C>(ctx.inputs[0], scaled, xs) : as_compute<C>(ctx.inputs[0], xs);
      ComputeOut<C> out(ctx.outputs[0]);
      if (by_planes) {
        resize_planes_pairs(planes, rows, cols, cur_data, out.data());
        out.commit();
        return;
      }
      Shape cur = s.in;
      for (size_t d = s.in.size(); d-- > 0;) {
        if (taps[d].empty()) continue;
        Shape next = cur;
        next[d] = s.out[d];
        ComputeBuffer<C>& dst = cur_data == a.data() ? b : a;
        dst.resize(static_cast<size_t>(numel_range(next, 0, next.size())));
        resize_axis(s, d, cur, taps[d], cur_data, dst.data());
        cur_data = dst.data();
        cur = next;
      }
      std::copy(cur_data, cur_data + ctx.outputs[0].numel(), out.data());
      out.commit();
    });
  });
}

std::unique_ptr<Kernel> make_resize_cpu(const KernelInit& init) {
  if (!is_float(init.inputs[0].dtype)) return nullptr;
  return make_planes_cpu(resolve_resize(InitContext(init).ctx), init.inputs[0].dtype, ScaledInput{});
}

std::unique_ptr<Kernel> make_scaled_resize_cpu(const KernelInit& init) {
  const InitContext ic(init);
  const Shape seen = scaled_resize_input_shape(ic.ctx);
  return make_planes_cpu(resolve_resize(ic.ctx, &seen), init.outputs[0].dtype, scaled_input_of(init.node));
}

void infer_scaled_resize(InferContext& ctx) {
  const DType x = ctx.input(0).dtype, to = scaled_resize_output(ctx.node());
  ctx.expect(scaled_resize_input(x), "X must be an 8- or 16-bit integer tensor, got ", dtype_name(x));
  ctx.expect(to == DType::Float32 || to == DType::Float16 || to == DType::BFloat16,
             "'to' must be float32, float16 or bfloat16, got ", dtype_name(to));
  const Shape seen = scaled_resize_input_shape(ctx);
  ctx.set_output(0, to, resolve_resize(ctx, &seen).out);
}

}  // namespace

IE_REGISTER_OPS(resize) {
  // roi and scales are float whatever X is: a fp16/bf16 plan keeps them as they are.
  OpRegistry::get().add(OpDef("", "Resize", infer_resize).with_fixed_type_inputs({1, 2}));
  OpRegistry::get().add_kernel("", "Resize", kernel_set::kCpu, make_resize_cpu);
  OpRegistry::get().add(OpDef("ie", "ScaledResize", infer_scaled_resize).with_fixed_type_inputs({1, 2}));
  OpRegistry::get().add_kernel("ie", "ScaledResize", kernel_set::kCpu, make_scaled_resize_cpu);
}

}  // namespace ie
