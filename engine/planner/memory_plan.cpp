#include "engine/planner/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace ie {

MemoryPlan plan_memory(const std::vector<BufferRequest>& requests, size_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  auto align = [&](size_t v) { return (v + alignment - 1) / alignment * alignment; };
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });

  std::vector<size_t> placed;
  for (size_t r : order) {
    const BufferRequest& req = requests[r];
    plan.total_bytes += align(req.bytes);
    // Intervals already taken by buffers alive at the same time, sorted by offset.
    std::vector<std::pair<size_t, size_t>> busy;
    for (size_t p : placed) {
      const BufferRequest& other = requests[p];
      bool overlap = req.first_step <= other.last_step && other.first_step <= req.last_step;
      if (overlap) busy.emplace_back(plan.offsets[p], plan.offsets[p] + align(other.bytes));
    }
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (auto& [begin, end] : busy) {
      if (offset + align(req.bytes) <= begin) break;
      offset = std::max(offset, end);
    }
    plan.offsets[r] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + align(req.bytes));
    placed.push_back(r);
  }
  return plan;
}

}  // namespace ie
