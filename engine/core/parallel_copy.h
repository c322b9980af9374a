// Large host copies spread over the CPU worker threads: one core's memcpy (and its page faults on fresh memory)
// caps at a few GB/s, far below what staging outputs of a GPU batch needs.
#pragma once

#include <cstddef>

namespace ie {

/// memcpy of `bytes` from `src` to `dst` (not overlapping), in parallel over the calling thread's workers when large.
void parallel_copy(void* dst, const void* src, size_t bytes);

}  // namespace ie
