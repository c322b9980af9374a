// Memory planner property test: on random lifetimes no two live buffers overlap, and reuse beats no reuse.
#include <doctest/doctest.h>

#include <random>

#include "engine/planner/memory_plan.h"

using namespace ie;

TEST_CASE("memory plan: live buffers never overlap (random graphs)") {
  std::mt19937 gen(42);
  for (int trial = 0; trial < 200; ++trial) {
    int n = 1 + static_cast<int>(gen() % 40);
    std::vector<BufferRequest> reqs;
    for (int i = 0; i < n; ++i) {
      int a = static_cast<int>(gen() % 30) - 1, len = static_cast<int>(gen() % 10);
      reqs.push_back({"t" + std::to_string(i), 1 + gen() % 5000, a, a + len});
    }
    MemoryPlan plan = plan_memory(reqs, 64);
    REQUIRE(plan.offsets.size() == reqs.size());
    CHECK(plan.arena_bytes <= plan.total_bytes);
    for (int i = 0; i < n; ++i) {
      CHECK(plan.offsets[i] % 64 == 0);
      CHECK(plan.offsets[i] + reqs[i].bytes <= plan.arena_bytes);
      for (int j = i + 1; j < n; ++j) {
        bool live_together = reqs[i].first_step <= reqs[j].last_step && reqs[j].first_step <= reqs[i].last_step;
        bool disjoint = plan.offsets[i] + reqs[i].bytes <= plan.offsets[j] || plan.offsets[j] + reqs[j].bytes <= plan.offsets[i];
        if (live_together) CHECK(disjoint);
      }
    }
  }
}

TEST_CASE("memory plan: a chain reuses two buffers") {
  std::vector<BufferRequest> reqs;
  for (int i = 0; i < 10; ++i) reqs.push_back({"t", 1000, i, i + 1});
  MemoryPlan plan = plan_memory(reqs, 256);
  CHECK(plan.arena_bytes == 2 * 1024);
  CHECK(plan.total_bytes == 10 * 1024);
}
