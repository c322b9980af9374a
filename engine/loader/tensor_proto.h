// TensorProto -> Tensor, with every storage form: raw_data, the typed repeated fields, and external data.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "engine/api/engine.h"

namespace ie {

/// `model_dir` resolves external data; `what` names the tensor in error messages.
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& model_dir, const std::string& what);

}  // namespace ie
