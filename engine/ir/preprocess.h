// Puts a model config's pre-processing steps in front of the graph as ordinary nodes, so they are planned, fused
// and run on the same backend as the model.
#pragma once

#include "engine/api/model_config.h"
#include "engine/ir/graph.h"

namespace ie {

/// The graph's input `cfg.input.name` becomes an intermediate produced from the new input `cfg.raw_input`.
void prepend_preprocessing(Graph& g, const ModelConfig& cfg);

}  // namespace ie
