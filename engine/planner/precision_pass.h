// The dtype-lowering pass of the fp16 and bf16 modes: activations and weights are stored in the mode's type
// between steps, while the graph's inputs and outputs keep their declared float32 at the edges.
#pragma once

#include <map>
#include <string>

#include "engine/backend/constant_store.h"
#include "engine/ir/graph.h"
#include "engine/registry/op_def.h"

namespace ie {

/// Rewrites `g` for `precision` (nothing for fp32 and tf32): every float32 constant is converted once per engine
/// through `store` (ops' fixed-type inputs, such as Resize's scales, excepted); float32 graph inputs enter
/// through a Cast to the storage type and float32 graph outputs leave through a Cast back; Casts to float32
/// inside the graph cast to the storage type instead. Shapes are inferred again; returns the Casts placed.
size_t lower_precision(Graph& g, Precision precision, ConstantStore& store,
                       const std::map<std::string, Shape>& input_shapes, std::map<std::string, TensorInfo>& infos);

/// A Cast node from tensor `from` to tensor `to` of element type `dtype`, named after `to`.
Node make_cast(const std::string& from, const std::string& to, DType dtype);

/// `t` converted to `dtype` once per engine: stored under a key made of the tensor's name, type, shape and bytes.
Tensor converted_constant(ConstantStore& store, const std::string& name, const Tensor& t, DType dtype);

}  // namespace ie
