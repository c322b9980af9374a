// Gelu's `approximate` attribute, shared by the CPU and CUDA kernels.
#pragma once

#include <string>

#include "engine/core/error.h"
#include "engine/ir/attributes.h"

namespace ie {

/// True for approximate="tanh", false for "none" (the default); fails naming `label` on anything else.
inline bool tanh_approximation(const Attributes& attrs, const std::string& label) {
  std::string mode = attrs.get_string("approximate", "none");
  if (mode != "none" && mode != "tanh")
    fail_input(label, ": attribute approximate must be \"none\" or \"tanh\", got \"", mode, "\"");
  return mode == "tanh";
}

}  // namespace ie
