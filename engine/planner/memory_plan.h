// Arena layout: every tensor gets an offset in one allocation; tensors whose lifetimes do not overlap share bytes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ie {

struct BufferRequest {
  std::string name;
  size_t bytes = 0;
  int first_step = 0;  // step that writes it (-1: written before the first step, e.g. a graph input)
  int last_step = 0;   // last step that reads it (a large number keeps it to the end, e.g. a graph output)
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // one per request, in request order
  size_t arena_bytes = 0;       // size of the shared allocation
  size_t total_bytes = 0;       // sum of all requests (what a planner without reuse would need)
};

/// Greedy by size: largest buffers first, each at the lowest aligned offset that overlaps no placed buffer
/// alive at the same time.
MemoryPlan plan_memory(const std::vector<BufferRequest>& requests, size_t alignment = 256);

}  // namespace ie
