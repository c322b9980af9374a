// Transpose's `perm` attribute, shared by the CPU and CUDA kernels.
#pragma once

#include <vector>

#include "engine/ir/graph.h"

namespace ie {

/// The permutation for an input of `rank` dims (reversed when perm is absent; negative entries count from the
/// back); fails naming the node when it is not a permutation.
std::vector<int64_t> read_perm(const Node& node, size_t rank);

}  // namespace ie
