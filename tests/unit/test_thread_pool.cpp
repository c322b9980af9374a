// The CPU thread pool: every task runs once, on at most the pool's threads; errors reach the caller; nested jobs
// and callers that find the pool busy run inline; each engine owns a pool of its --threads that its sessions share.
#include <doctest/doctest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/api/engine.h"
#include "engine/api/session_impl.h"
#include "engine/backend/backend.h"
#include "engine/core/parallel.h"
#include "graph_builder.h"

using namespace ie;

namespace {

// Runs `tasks` tasks on `pool`; returns how many times each ran and the threads that ran them.
struct Tally {
  std::vector<std::atomic<int>> runs;
  std::mutex mutex;
  std::set<std::thread::id> threads;
  explicit Tally(int64_t tasks) : runs(static_cast<size_t>(tasks)) {}
  void record(int64_t i) {
    runs[static_cast<size_t>(i)].fetch_add(1);
    std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
  }
  bool each_once() const {
    for (auto& r : runs)
      if (r.load() != 1) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("thread pool: every task runs exactly once, on at most the pool's threads") {
  for (int size : {1, 2, 3, 8}) {
    ThreadPool pool(size);
    for (int64_t tasks : {1, 2, 7, 100, 1001}) {
      Tally tally(tasks);
      pool.run(tasks, [&](int64_t i) { tally.record(i); });
      CAPTURE(size);
      CAPTURE(tasks);
      CHECK(tally.each_once());
      CHECK(static_cast<int>(tally.threads.size()) <= size);
    }
  }
}

TEST_CASE("thread pool: jobs of more tasks than the claim word counts run every task once") {
  ThreadPool pool(3);
  const int64_t tasks = (int64_t(1) << 20) + 12345;  // above 2^20 - 1: tasks are claimed in runs
  std::vector<std::atomic<uint8_t>> runs(static_cast<size_t>(tasks));
  pool.run(tasks, [&](int64_t i) { runs[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed); });
  int64_t wrong = 0;
  for (auto& r : runs) wrong += r.load() != 1;
  CHECK(wrong == 0);
}

TEST_CASE("thread pool: a task's exception reaches the caller and the pool stays usable") {
  ThreadPool pool(4);
  std::atomic<int> ran{0};
  CHECK_THROWS_WITH_AS(pool.run(1000,
                                [&](int64_t i) {
                                  ran.fetch_add(1);
                                  if (i == 17) throw std::runtime_error("task 17 failed");
                                }),
                       "task 17 failed", std::runtime_error);
  CHECK(ran.load() <= 1000);
  Tally tally(500);
  pool.run(500, [&](int64_t i) { tally.record(i); });
  CHECK(tally.each_once());
}

TEST_CASE("thread pool: a nested job runs inline on the task's thread") {
  ThreadPool pool(4);
  std::atomic<int> mismatched{0}, inner{0};
  pool.run(16, [&](int64_t) {
    const auto outer_thread = std::this_thread::get_id();
    CHECK(ThreadPool::in_task());
    pool.run(8, [&](int64_t) {
      inner.fetch_add(1);
      if (std::this_thread::get_id() != outer_thread) mismatched.fetch_add(1);
    });
  });
  CHECK(inner.load() == 16 * 8);
  CHECK(mismatched.load() == 0);
  CHECK_FALSE(ThreadPool::in_task());
}

TEST_CASE("thread pool: several callers at once each get all their tasks run") {
  ThreadPool pool(3);
  constexpr int kCallers = 4, kJobs = 200;
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&] {
      for (int j = 0; j < kJobs; ++j) {
        Tally tally(37);
        pool.run(37, [&](int64_t i) { tally.record(i); });
        if (!tally.each_once()) failures.fetch_add(1);
      }
    });
  for (auto& t : callers) t.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("thread pool: resize changes the thread count; parallel_for covers the range once") {
  ThreadPool pool(2);
  pool.resize(5);
  CHECK(pool.size() == 5);
  ThreadPoolScope scope(&pool);
  CHECK(cpu_threads() == 5);
  for (int64_t n : {1, 5, 999, 100000}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    parallel_for(n, 7, [&](int64_t b, int64_t e) {
      CHECK(e - b >= std::min<int64_t>(7, n));
      for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
    });
    int64_t wrong = 0;
    for (auto& h : hits) wrong += h.load() != 1;
    CAPTURE(n);
    CHECK(wrong == 0);
  }
}

TEST_CASE("thread pool: each engine owns a pool of its threads, shared by its sessions") {
  test::GraphBuilder b;
  b.input("x", {-1, 4});
  b.node("Relu", {"x"}, {"y"}, {}, "relu");
  Graph graph = b.output("y").build();
  Options options;
  options.backend = "cpu";
  options.threads = 3;
  Engine engine = Engine::from_graph(graph, options);
  Session one = engine.create_session(), two = engine.create_session();
  ThreadPool* pool = one.impl()->backend->thread_pool();
  REQUIRE(pool != nullptr);
  CHECK(pool->size() == 3);
  CHECK(two.impl()->backend->thread_pool() == pool);

  options.threads = 2;
  Engine other = Engine::from_graph(graph, options);
  ThreadPool* other_pool = other.create_session().impl()->backend->thread_pool();
  REQUIRE(other_pool != nullptr);
  CHECK(other_pool != pool);
  CHECK(other_pool->size() == 2);
  // The default pool (code outside an engine) is untouched by engines' thread counts.
  set_cpu_threads(1);
  CHECK(cpu_threads() == 1);
  set_cpu_threads(0);
}
