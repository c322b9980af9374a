#include "engine/core/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <system_error>

#include <unistd.h>

#include "engine/core/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define IE_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define IE_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define IE_CPU_RELAX() std::this_thread::yield()
#endif

namespace ie {

namespace {

thread_local int t_task_depth = 0;  // > 0 while this thread runs a pool's task

struct TaskDepth {
  TaskDepth() { ++t_task_depth; }
  ~TaskDepth() { --t_task_depth; }
};

// Long enough to span the serial gaps between a plan's steps (SSA at batch 512 on 2 threads: 9.6 ms with no spin,
// 8.3 with 50 us, 7.9 with 1 ms, the OpenMP runtime's 8.1-8.6), short enough that idle pools stay off the cores.
constexpr int kSpinMicroseconds = 50;

// The claim word: generation (24 bits) | units (20) | next unit (20).
constexpr int kUnitBits = 20;
constexpr uint64_t kUnitMask = (1ull << kUnitBits) - 1;
constexpr uint32_t kGenerationMask = (1u << 24) - 1;
uint32_t claim_generation(uint64_t c) { return static_cast<uint32_t>(c >> (2 * kUnitBits)); }
uint64_t claim_units(uint64_t c) { return (c >> kUnitBits) & kUnitMask; }
uint64_t claim_next(uint64_t c) { return c & kUnitMask; }

// Spins until done() or `us` microseconds have passed; true when done() held.
template <class Done>
bool spin_until(Done&& done, int us) {
  if (us <= 0) return done();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  for (int i = 0;; ++i) {
    if (done()) return true;
    IE_CPU_RELAX();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= deadline) return done();
  }
}

}  // namespace

int hardware_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

bool ThreadPool::in_task() { return t_task_depth > 0; }

ThreadPool::ThreadPool(int threads) : m_size(std::max(1, threads)), m_owner(static_cast<int>(getpid())) {
  m_spin_us = size() <= hardware_threads() ? kSpinMicroseconds : 0;
}

ThreadPool::~ThreadPool() { stop_workers(); }

void ThreadPool::resize(int threads) {
  std::lock_guard<std::mutex> submit(m_submit);
  if (std::max(1, threads) == size()) return;
  stop_workers();
  m_size.store(std::max(1, threads), std::memory_order_relaxed);
  m_spin_us = size() <= hardware_threads() ? kSpinMicroseconds : 0;
}

void ThreadPool::forget_workers_after_fork() {
  // A forked child has only the thread that called fork(): the workers (and any lock one of them held) stayed in
  // the parent. Their handles cannot be joined here, so they are left unjoined on purpose, and the child starts
  // its own workers.
  if (!m_workers.empty()) new std::vector<std::thread>(std::move(m_workers));  // never destroyed: no terminate()
  m_workers.clear();
  new (&m_mutex) std::mutex;
  new (&m_wake) std::condition_variable;
  new (&m_done) std::condition_variable;
  m_sleepers.store(0);
  m_caller_waiting.store(false);
  m_owner = static_cast<int>(getpid());
}

void ThreadPool::start_workers() {
  m_stop = false;
  m_owner = static_cast<int>(getpid());
  try {
    while (static_cast<int>(m_workers.size()) < size() - 1) m_workers.emplace_back([this] { worker_loop(); });
  } catch (const std::system_error& e) {
    stop_workers();
    fail(ErrorKind::Usage, "cannot start ", size() - 1, " worker threads: ", e.what());
  }
}

void ThreadPool::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  for (auto& t : m_workers) t.join();
  m_workers.clear();
}

void ThreadPool::run_erased(int64_t tasks, void* context, Call call) {
  if (tasks <= 0) return;
  // Inline: one task, one thread, a nested job, or the pool busy with another caller's job.
  std::unique_lock<std::mutex> submit(m_submit, std::defer_lock);
  if (tasks == 1 || size() == 1 || in_task() || !submit.try_lock()) {
    TaskDepth depth;
    for (int64_t i = 0; i < tasks; ++i) call(context, i);
    return;
  }
  if (m_owner != static_cast<int>(getpid())) forget_workers_after_fork();
  if (m_workers.empty()) start_workers();
  const uint64_t units = std::min<uint64_t>(static_cast<uint64_t>(tasks), kUnitMask);
  m_context = context;
  m_call = call;
  m_tasks = tasks;
  m_error = nullptr;
  m_finished.store(0, std::memory_order_relaxed);
  const uint32_t generation = (m_generation.load(std::memory_order_relaxed) + 1) & kGenerationMask;
  m_claim.store((static_cast<uint64_t>(generation) << (2 * kUnitBits)) | (units << kUnitBits),
                std::memory_order_release);  // publishes the job's fields above to whoever claims a unit
  m_generation.store(generation);
  if (m_sleepers.load() > 0) {
    { std::lock_guard<std::mutex> lock(m_mutex); }
    m_wake.notify_all();
  }
  work(generation);
  // Units still running on workers: spin a little, then sleep until the last one reports.
  auto all_done = [&] { return m_finished.load() == static_cast<int64_t>(units); };
  if (!spin_until(all_done, m_spin_us)) {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_caller_waiting.store(true);
    m_done.wait(lock, all_done);
    m_caller_waiting.store(false, std::memory_order_relaxed);
  }
  if (m_error) std::rethrow_exception(m_error);
}

void ThreadPool::run_unit(uint64_t unit, uint64_t units) {
  const uint64_t tasks = static_cast<uint64_t>(m_tasks);
  const int64_t begin = static_cast<int64_t>(unit * tasks / units), end = static_cast<int64_t>((unit + 1) * tasks / units);
  for (int64_t i = begin; i < end; ++i) m_call(m_context, i);
}

void ThreadPool::work(uint32_t generation) {
  TaskDepth depth;
  for (;;) {
    uint64_t claim = m_claim.load(std::memory_order_acquire);
    do {
      if (claim_generation(claim) != generation || claim_next(claim) >= claim_units(claim)) return;
    } while (!m_claim.compare_exchange_weak(claim, claim + 1, std::memory_order_acq_rel, std::memory_order_acquire));
    const uint64_t units = claim_units(claim);
    int64_t done = 1;
    try {
      run_unit(claim_next(claim), units);
    } catch (...) {
      std::lock_guard<std::mutex> lock(m_error_mutex);
      if (!m_error) m_error = std::current_exception();
      // Close the job: the units nobody has claimed yet count as finished without running.
      uint64_t c = m_claim.load(std::memory_order_acquire);
      while (claim_generation(c) == generation && claim_next(c) < units &&
             !m_claim.compare_exchange_weak(c, (c & ~kUnitMask) | units, std::memory_order_acq_rel,
                                            std::memory_order_acquire)) {
      }
      if (claim_generation(c) == generation && claim_next(c) < units) done += static_cast<int64_t>(units - claim_next(c));
    }
    if (m_finished.fetch_add(done) + done == static_cast<int64_t>(units) && m_caller_waiting.load()) {
      { std::lock_guard<std::mutex> lock(m_mutex); }
      m_done.notify_one();
    }
  }
}

void ThreadPool::worker_loop() {
  uint32_t seen = m_generation.load(std::memory_order_acquire);
  for (;;) {
    auto job_ready = [&] { return m_generation.load() != seen; };
    if (!spin_until(job_ready, m_spin_us)) {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_sleepers.fetch_add(1);
      m_wake.wait(lock, [&] { return m_stop || job_ready(); });
      m_sleepers.fetch_sub(1, std::memory_order_relaxed);
      if (m_stop) return;
    }
    seen = m_generation.load();
    work(seen);
  }
}

}  // namespace ie
