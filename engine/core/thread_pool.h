// A fork-join pool of worker threads for the CPU kernels: each engine owns one (its --threads), reused by every
// run of its sessions; code outside an engine uses the process's default pool (parallel.h).
//
// A job is `tasks` calls of one function; the caller runs tasks too and returns when all have finished. Workers
// spin for a few microseconds after a job (the next step's job usually comes sooner than a sleep and wake-up would
// take), then sleep on a condition variable, so idle pools cost nothing and an oversubscribed machine sees no spin
// storms. A task that starts a job of its own, or a caller that finds the pool serving another thread, runs the
// tasks itself: never more threads at work than the pool's size plus the callers. A process forked from one whose
// pool had started starts workers of its own on its first job.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace ie {

/// The processor's hardware threads (at least 1).
int hardware_threads();

class ThreadPool {
 public:
  /// `threads` >= 1 counts the caller: threads - 1 workers, started on the first job that needs them.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return m_size.load(std::memory_order_relaxed); }
  /// Changes the thread count; waits for a running job to finish first.
  void resize(int threads);

  /// Calls task(i) for every i in [0, tasks) and returns when all have returned; the first exception a task throws
  /// is rethrown here (tasks not yet started are then skipped).
  template <class Task>
  void run(int64_t tasks, Task&& task) {
    using T = std::remove_reference_t<Task>;
    run_erased(tasks, const_cast<void*>(static_cast<const void*>(&task)),
               [](void* t, int64_t i) { (*static_cast<T*>(t))(i); });
  }

  /// True on a thread that is running a task of some pool (a nested job runs inline there).
  static bool in_task();

 private:
  using Call = void (*)(void*, int64_t);
  void run_erased(int64_t tasks, void* context, Call call);
  void start_workers();
  void forget_workers_after_fork();
  void stop_workers();
  void worker_loop();
  // Claims and runs units of job `generation` until none is left.
  void work(uint32_t generation);
  void run_unit(uint64_t unit, uint64_t units);

  std::atomic<int> m_size;
  std::mutex m_submit;  // one job at a time
  std::vector<std::thread> m_workers;

  // The job. `m_claim` packs the job's generation, its unit count and the next unclaimed unit (24, 20 and 20 bits),
  // so a worker still holding an older job's generation can never claim a unit of the current one; a unit is one
  // task or, for jobs of more than 2^20 - 1 tasks, a run of them.
  void* m_context = nullptr;
  Call m_call = nullptr;
  int64_t m_tasks = 0;
  std::atomic<uint64_t> m_claim{0};
  std::atomic<uint32_t> m_generation{0};
  std::atomic<int64_t> m_finished{0};  // units
  std::exception_ptr m_error;
  std::mutex m_error_mutex;

  std::mutex m_mutex;  // guards sleeping and waking
  std::condition_variable m_wake, m_done;
  std::atomic<int> m_sleepers{0};
  std::atomic<bool> m_caller_waiting{false};
  bool m_stop = false;
  int m_spin_us = 0;  // spin time after a job; 0 when the pool has more threads than the processor
  int m_owner = 0;    // the process that started the workers (a forked child has none of them)
};

}  // namespace ie
