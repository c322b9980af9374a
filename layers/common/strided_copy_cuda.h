// Device-side N-d copies between strided views: the one data-movement kernel behind the CUDA Transpose, Slice,
// Expand, Tile, Concat and Split. Same contract as strided_copy() (strided_copy.h), on the given stream.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "engine/core/shape.h"

namespace ie::cuda {

/// Element sizes the copy kernels move (1, 2, 4 or 8 bytes); kernel factories return nullptr for others.
inline bool copyable_size(size_t elem) { return elem == 1 || elem == 2 || elem == 4 || elem == 8; }

/// dst[sum i_k * dst_strides[k]] = src[sum i_k * src_strides[k]] over the `shape` box, enqueued on `stream`.
/// Element sizes 1, 2, 4 or 8 bytes; strides in elements, may be 0 or negative; the regions must not overlap.
void strided_copy(size_t elem_size, const Shape& shape, void* dst, const std::vector<int64_t>& dst_strides,
                  const void* src, const std::vector<int64_t>& src_strides, cudaStream_t stream);

}  // namespace ie::cuda
