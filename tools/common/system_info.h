// Facts a benchmark report starts with: the project's revision and the device behind each backend path.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/api/engine.h"

namespace ie::cli {

/// `git describe` of the source tree at configure time, or "unknown".
std::string git_revision();
/// Device and library facts of a backend path (GPU name, SMs, clocks, driver, CUDA/cuDNN/cuBLAS; CPU name and
/// threads), in display order.
std::vector<std::pair<std::string, std::string>> device_info(const std::string& backend, const Options& options);

}  // namespace ie::cli
