#include "engine/core/parallel.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "engine/core/error.h"

namespace ie {

namespace {
constexpr int kMaxThreadsCap = 1024;
int hardware_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }
}  // namespace

int max_cpu_threads() { return std::min(kMaxThreadsCap, 4 * hardware_threads()); }

void check_cpu_threads(int64_t threads, const std::string& what) {
  if (threads < 0 || threads > max_cpu_threads())
    fail(ErrorKind::Usage, what, " must be from 0 (all cores) to ", max_cpu_threads(), " (4x the ", hardware_threads(),
         " hardware threads, at most ", kMaxThreadsCap, "), got ", threads);
}

void set_cpu_threads(int threads) {
  check_cpu_threads(threads, "threads");
  // 0: OMP_NUM_THREADS when the user set it, else every core.
  static const int env_threads = [] {
    const char* env = std::getenv("OMP_NUM_THREADS");
    return env ? std::atoi(env) : 0;
  }();
  if (threads == 0 && env_threads > 0) check_cpu_threads(env_threads, "OMP_NUM_THREADS");
  int n = threads > 0 ? threads : env_threads > 0 ? env_threads : static_cast<int>(std::thread::hardware_concurrency());
  omp_set_num_threads(n > 0 ? n : 1);
}

int cpu_threads() { return omp_get_max_threads(); }

}  // namespace ie
