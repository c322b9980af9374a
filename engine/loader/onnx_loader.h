// Reads an ONNX file (and its external data) into the engine's Graph. The only module that sees protobuf.
#pragma once

#include <string>

#include "engine/ir/graph.h"

namespace ie {

/// Loads `path`; throws Error(BadInput) naming the file, node or tensor on a truncated, corrupt or unsupported
/// model. The graph comes back topologically sorted, with initializers in Graph::constants.
Graph load_onnx(const std::string& path);

/// Parses a serialized TensorProto file (the test data sets of ONNX's node tests use them).
Tensor load_tensor_proto(const std::string& path);

}  // namespace ie
