#include "engine/core/parallel.h"

#include <cstdlib>
#include <memory>

#include "engine/core/error.h"

namespace ie {

namespace {
constexpr int kMaxThreadsCap = 1024;
thread_local ThreadPool* t_current_pool = nullptr;

ThreadPool& default_pool() {
  static ThreadPool pool(resolve_cpu_threads(0));
  return pool;
}
}  // namespace

int max_cpu_threads() { return std::min(kMaxThreadsCap, 4 * hardware_threads()); }

void check_cpu_threads(int64_t threads, const std::string& what) {
  if (threads < 0 || threads > max_cpu_threads())
    fail(ErrorKind::Usage, what, " must be from 0 (all cores) to ", max_cpu_threads(), " (4x the ", hardware_threads(),
         " hardware threads, at most ", kMaxThreadsCap, "), got ", threads);
}

int resolve_cpu_threads(int threads) {
  check_cpu_threads(threads, "threads");
  if (threads > 0) return threads;
  static const int env_threads = [] {
    const char* env = std::getenv("OMP_NUM_THREADS");
    return env ? std::atoi(env) : 0;
  }();
  if (env_threads > 0) {
    check_cpu_threads(env_threads, "OMP_NUM_THREADS");
    return env_threads;
  }
  return hardware_threads();
}

void set_cpu_threads(int threads) { default_pool().resize(resolve_cpu_threads(threads)); }

int cpu_threads() { return current_thread_pool().size(); }

ThreadPool& current_thread_pool() { return t_current_pool ? *t_current_pool : default_pool(); }

ThreadPoolScope::ThreadPoolScope(ThreadPool* pool) : m_saved(t_current_pool), m_set(pool != nullptr) {
  if (m_set) t_current_pool = pool;
}

ThreadPoolScope::~ThreadPoolScope() {
  if (m_set) t_current_pool = m_saved;
}

}  // namespace ie
