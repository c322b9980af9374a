// Input files of a tool run: --input PATH or NAME=PATH, with --shape / --dtype for raw files, named after the
// graph inputs they feed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/api/engine.h"
#include "engine/api/model_config.h"

namespace ie::cli {

/// "name=value" items into a map; a bare value is keyed "" (the model's only input). Throws on a repeated key.
std::map<std::string, std::string> split_named(const std::vector<std::string>& items, const char* flag);

/// Reads every --input file (raw files take their --shape/--dtype) and keys it by the graph input it feeds.
std::map<std::string, Tensor> read_named_inputs(const std::vector<std::string>& files,
                                                const std::vector<std::string>& shapes,
                                                const std::vector<std::string>& dtypes,
                                                const std::vector<std::string>& graph_inputs);

/// With a config: one --input file holding either raw data (the config's raw_input dtype: `raw` becomes true and the
/// pre-processing graph must be loaded) or the model's own input. Throws Error(Usage) for anything else.
std::map<std::string, Tensor> read_config_input(const std::vector<std::string>& files,
                                                const std::vector<std::string>& shapes,
                                                const std::vector<std::string>& dtypes, const ModelConfig& config,
                                                bool* raw);

}  // namespace ie::cli
