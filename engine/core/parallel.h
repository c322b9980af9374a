// Multi-threading for CPU kernels: parallel_for runs on the calling thread's current pool, the engine's own
// (ThreadPoolScope, set by the CPU backend around its plans' steps) or else the process's default pool.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "engine/core/thread_pool.h"

namespace ie {

/// The most worker threads a caller may ask for: 4x the hardware threads (oversubscription is useful for tests),
/// never more than 1024.
int max_cpu_threads();
/// Throws Error(Usage) "<what> must be from 0 to N (4x the M hardware threads), got T" when threads is out of range.
void check_cpu_threads(int64_t threads, const std::string& what);
/// The thread count a request of `threads` means: itself when > 0; for 0, OMP_NUM_THREADS when set (the usual way
/// to cap a process's threads), else every hardware thread. Throws Error(Usage) when out of range.
int resolve_cpu_threads(int threads);
/// Sets the default pool's thread count (resolve_cpu_threads): the pool of code that runs outside an engine.
void set_cpu_threads(int threads);
/// Thread count of the pool parallel_for uses on the calling thread.
int cpu_threads();

/// The pool parallel_for uses on the calling thread: the innermost ThreadPoolScope's, else the default pool.
ThreadPool& current_thread_pool();

/// Makes `pool` the calling thread's current pool until the scope ends (nullptr: no change).
class ThreadPoolScope {
 public:
  explicit ThreadPoolScope(ThreadPool* pool);
  ~ThreadPoolScope();
  ThreadPoolScope(const ThreadPoolScope&) = delete;
  ThreadPoolScope& operator=(const ThreadPoolScope&) = delete;

 private:
  ThreadPool* m_saved;
  bool m_set;
};

/// Calls fn(begin, end) over [0, n) in chunks of at least `grain` items, in parallel when worthwhile. At most 8
/// chunks per thread: enough for the threads to even out, few enough that claiming them costs nothing.
template <class Fn>
void parallel_for(int64_t n, int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  int64_t chunks = (n + grain - 1) / grain;
  ThreadPool* pool = chunks > 1 && !ThreadPool::in_task() ? &current_thread_pool() : nullptr;
  if (pool) chunks = std::min<int64_t>(chunks, 8 * static_cast<int64_t>(pool->size()));
  if (!pool || chunks <= 1 || pool->size() == 1) {
    fn(int64_t(0), n);
    return;
  }
  const int64_t per = (n + chunks - 1) / chunks;
  chunks = (n + per - 1) / per;
  pool->run(chunks, [&](int64_t c) {
    const int64_t b = c * per, e = std::min(n, b + per);
    fn(b, e);
  });
}

}  // namespace ie
