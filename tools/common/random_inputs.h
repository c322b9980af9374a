// Seeded random inputs that respect each input's dtype: uint8 raw images 0..255, floats uniform in [0, 1),
// signed integers 0..9, bools half true. Never zeros, so caches and sparsity do not flatter a benchmark.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie::cli {

/// One tensor per declared input; a symbolic first dim becomes `batch`. Throws Error(Usage) when another dim is
/// symbolic or the rank is unknown (such models need --input files).
std::map<std::string, Tensor> random_inputs(const std::vector<TensorDecl>& decls, int64_t batch, uint64_t seed);

}  // namespace ie::cli
