// The cuDNN convolution behind Conv and ie.FusedConv on the "cuda-reference" backend.
#pragma once

#include <memory>

#include "engine/registry/op_def.h"
#include "layers/common/conv_core.h"

namespace ie {

/// Whether cuDNN runs this conv setup: float32, 1 or 2 spatial dims, activation None or Relu, no fused pool.
bool cudnn_conv_supports(const ConvSetup& setup);

/// Builds the cuDNN kernel for a Conv/FusedConv node with inputs X, W, optional B (descriptors, algorithm and
/// workspace fixed here); nullptr when cudnn_conv_supports() says no or the dtype is not float32.
std::unique_ptr<Kernel> make_cudnn_conv(const KernelInit& init, const ConvSetup& setup);

}  // namespace ie
