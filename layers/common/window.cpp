#include "layers/common/window.h"

#include "engine/core/checked_math.h"
#include "engine/core/error.h"

namespace ie {

bool Window::is_pointwise() const {
  for (int i = 0; i < kMaxSpatial; ++i)
    if (kernel[i] != 1 || stride[i] != 1 || pad_begin[i] != 0 || pad_end[i] != 0) return false;
  return true;
}

Shape Window::out_shape() const { return Shape(out + kMaxSpatial - spatial, out + kMaxSpatial); }

namespace {

std::vector<int64_t> ints_or(const Attributes& attrs, const std::string& name, size_t n, int64_t fill,
                             const std::string& where) {
  std::vector<int64_t> v = attrs.get_ints(name, std::vector<int64_t>(n, fill));
  if (v.size() != n)
    fail_input(where, ": attribute '", name, "' has ", v.size(), " values, expected ", n, " (one per spatial dim)");
  return v;
}

}  // namespace

Window resolve_window(const Attributes& attrs, const std::string& prefix, const Shape& in_spatial, Shape kernel,
                      bool allow_ceil, const std::string& where) {
  const size_t n = in_spatial.size();
  if (n < 1 || n > static_cast<size_t>(kMaxSpatial))
    fail_input(where, ": ", n, " spatial dims are not supported (expected 1 to ", kMaxSpatial, ")");
  const std::string ks_name = prefix + "kernel_shape";
  if (attrs.has(ks_name)) {
    Shape ks = attrs.get_ints(ks_name);
    if (!kernel.empty() && ks != kernel)
      fail_input(where, ": attribute '", ks_name, "' ", shape_to_string(ks), " disagrees with the weight's kernel ",
                 shape_to_string(kernel));
    kernel = ks;
  }
  if (kernel.empty()) fail_input(where, ": attribute '", ks_name, "' is required");
  if (kernel.size() != n)
    fail_input(where, ": kernel shape ", shape_to_string(kernel), " has ", kernel.size(), " dims, the input has ", n,
               " spatial dims");
  auto strides = ints_or(attrs, prefix + "strides", n, 1, where);
  auto dilations = ints_or(attrs, prefix + "dilations", n, 1, where);
  auto pads = ints_or(attrs, prefix + "pads", 2 * n, 0, where);
  const std::string auto_pad = attrs.get_string(prefix + "auto_pad", "NOTSET");
  const bool ceil_mode = allow_ceil && attrs.get_int(prefix + "ceil_mode", 0) != 0;
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    fail_input(where, ": auto_pad '", auto_pad, "' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER");

  Window w;
  w.spatial = static_cast<int>(n);
  const size_t off = kMaxSpatial - n;
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = in_spatial[i], k = kernel[i], s = strides[i], d = dilations[i];
    if (k < 1 || s < 1 || d < 1)
      fail_input(where, ": kernel, strides and dilations must be positive, got kernel ", k, ", stride ", s,
                 ", dilation ", d, " on spatial dim ", i);
    int64_t pb = pads[i], pe = pads[i + n];
    if (pb < 0 || pe < 0) fail_input(where, ": pads must be non-negative, got ", pb, " and ", pe);
    // Every attribute is the model's; the window's extent and the padded span must not wrap.
    const std::string what = concat(where, ": window of spatial dim ", i);
    const int64_t eff = checked_add(checked_mul(k - 1, d, what), 1, what);
    int64_t out = 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = in / s + (in % s != 0);
      int64_t total = std::max<int64_t>(0, checked_add(checked_mul(out - 1, s, what), eff, what) - in);
      pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else {
      if (auto_pad == "VALID") pb = pe = 0;
      int64_t span = checked_add(checked_add(in, pb, what), pe, what) - eff;
      if (span < 0)
        fail_input(where, ": the window (kernel ", k, ", dilation ", d, ") is larger than the padded input (", in,
                   " + pads ", pb, ", ", pe, ") on spatial dim ", i);
      out = (ceil_mode ? span / s + (span % s != 0) : span / s) + 1;
      // A window that would start entirely inside the end padding is dropped (PyTorch's and ORT's rule).
      if (ceil_mode && (out - 1) * s >= in + pb) --out;
    }
    w.in[off + i] = in;
    w.out[off + i] = out;
    w.kernel[off + i] = k;
    w.stride[off + i] = s;
    w.dilation[off + i] = d;
    w.pad_begin[off + i] = pb;
    w.pad_end[off + i] = pe;
  }
  return w;
}

}  // namespace ie
