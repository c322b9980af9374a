// The fused convolution labs' float64 reference: an unpadded convolution, bias, ReLU and a floor-mode max pool
// (window = stride), NaN kept as the fused epilogues keep it. Host only; the shapes are fused_conv_cuda.cuh's.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "layers/fused_conv/fused_conv_cuda.cuh"

namespace lab {

inline double nan_max64(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }

inline std::vector<double> to_double(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

/// y[n][k][ph][pw] = relu(max over the window of conv + bias) from x [n][c][h][w] and w [k][c][r][r] as given (round
/// them to the kernel's operand type first).
inline std::vector<double> conv_pool_reference(const ie::fused_conv::ConvPoolShape& s, const std::vector<double>& x,
                                               const std::vector<float>& w, const std::vector<float>& b) {
  namespace fc = ie::fused_conv;
  const int ph = fc::pooled_h(s), pw = fc::pooled_w(s), win = s.pool_window, st = s.pool_stride;
  std::vector<double> y(static_cast<size_t>(s.n) * s.k * ph * pw);
  for (int n = 0; n < s.n; ++n)
    for (int ch = 0; ch < s.k; ++ch)
      for (int py = 0; py < ph; ++py)
        for (int px = 0; px < pw; ++px) {
          double m = -INFINITY;
          for (int dy = 0; dy < win; ++dy)
            for (int dx = 0; dx < win; ++dx) {
              double a = 0;
              for (int ci = 0; ci < s.c; ++ci)
                for (int ky = 0; ky < s.r; ++ky) {
                  const double* xr = &x[((static_cast<size_t>(n) * s.c + ci) * s.h + py * st + dy + ky) * s.w];
                  const float* wr = &w[((static_cast<size_t>(ch) * s.c + ci) * s.r + ky) * s.r];
                  for (int kx = 0; kx < s.r; ++kx) a += xr[px * st + dx + kx] * wr[kx];
                }
              m = nan_max64(m, a);
            }
          const double v = m + b[ch];
          y[((static_cast<size_t>(n) * s.k + ch) * ph + py) * pw + px] = std::isnan(v) ? NAN : std::max(v, 0.0);
        }
  return y;
}

}  // namespace lab
