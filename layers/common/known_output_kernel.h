// CPU kernel for ops whose shape inference already knows the output values (Shape, Size, Constant). The planner
// normally folds such nodes; the kernel exists so that an unfolded node still runs.
#pragma once

#include <memory>

#include "engine/registry/op_def.h"

namespace ie {

/// Runs `infer` on the node once and returns a kernel that copies the values it set with set_output_constant.
std::unique_ptr<Kernel> make_known_output_kernel(const KernelInit& init, const InferFn& infer);

}  // namespace ie
