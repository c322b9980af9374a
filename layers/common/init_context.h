// Kernel factories that need the same plan as shape inference (Split's sizes, Slice's starts) rebuild the
// InferContext from their KernelInit instead of parsing twice.
#pragma once

#include <vector>

#include "engine/registry/op_def.h"

namespace ie {

/// Holds the pointers into `init`; use it while `init` lives.
struct InitContext {
  std::vector<const TensorInfo*> infos;
  InferContext ctx;
  explicit InitContext(const KernelInit& init)
      : infos(pointers(init)), ctx(init.node, infos, init.constants, init.opset) {}

 private:
  static std::vector<const TensorInfo*> pointers(const KernelInit& init) {
    std::vector<const TensorInfo*> p;
    for (auto& info : init.inputs) p.push_back(info.dtype == DType::Undefined ? nullptr : &info);
    return p;
  }
};

}  // namespace ie
