// The convolution core shared by Conv and the fused ie.FusedConv. float (and float16/bfloat16, computed in float)
// 2-D convolutions with few channels, stride 1, ReLU or no activation run the direct kernel of
// layers/common/cpu/direct_conv.h, pool fused; the rest take im2col + one matrix product per image and group, then
// bias, activation and (FusedConv) max pooling while the image's conv output is still in cache.
#pragma once

#include <memory>
#include <string>

#include "engine/registry/op_def.h"
#include "layers/common/activation.h"
#include "layers/common/window.h"

namespace ie {

struct ConvSetup {
  Window conv;
  int64_t batch = 0, in_channels = 0, out_channels = 0, group = 1;
  Activation activation = Activation::None;
  bool pool = false;  // max pool after the activation
  Window pool_window;

  /// [N, M, out...] of the whole op (after the pool when there is one).
  Shape output_shape() const;
};

/// Multiply-adds of the convolution alone (before any pool), times 2: 2 * N * Cout * out_volume * Cin/g * k_volume.
double conv_flops(const ConvSetup& setup);

/// Reads Conv's attributes for input X, weight W and optional bias (nullptr when absent) and checks that the
/// shapes fit (channels, group, bias length); fails naming `where`.
ConvSetup resolve_conv(const Attributes& attrs, const Shape& x, const Shape& w, const Shape* bias,
                       const std::string& where);

/// Runs the whole batch: x [N, C, in...], w [M, C/group, k...], bias [M] or nullptr, y as output_shape().
template <class C>
void conv_forward(const ConvSetup& setup, const C* x, const C* w, const C* bias, C* y);

/// CPU kernel for a float Conv/FusedConv node with inputs X, W, B: constant weights are packed once here (for the
/// direct kernel in its own layout). Threads: over images, and over row bands of each image when the batch is
/// smaller than the thread count.
std::unique_ptr<Kernel> make_conv_kernel(const KernelInit& init, const ConvSetup& setup);

}  // namespace ie
