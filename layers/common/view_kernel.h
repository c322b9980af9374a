// CPU kernel of the view ops (Reshape, Flatten, Squeeze, Unsqueeze): the bytes do not change, so the output either
// already shares the input's buffer (the planner aliased them) or receives a plain copy.
#pragma once

#include <cstring>
#include <memory>

#include "engine/registry/op_def.h"

namespace ie {

inline std::unique_ptr<Kernel> make_view_kernel(const KernelInit&) {
  return make_kernel([](KernelContext& ctx) {
    const TensorRef& in = ctx.inputs[0];
    const TensorRef& out = ctx.outputs[0];
    if (out.data != in.data && out.nbytes()) std::memcpy(out.data, in.data, out.nbytes());
  });
}

}  // namespace ie
