#include "engine/core/parallel.h"

#include <omp.h>

#include <cstdlib>
#include <thread>

namespace ie {

void set_cpu_threads(int threads) {
  // 0: OMP_NUM_THREADS when the user set it, else every core.
  static const int env_threads = [] {
    const char* env = std::getenv("OMP_NUM_THREADS");
    return env ? std::atoi(env) : 0;
  }();
  int n = threads > 0 ? threads : env_threads > 0 ? env_threads : static_cast<int>(std::thread::hardware_concurrency());
  omp_set_num_threads(n > 0 ? n : 1);
}

int cpu_threads() { return omp_get_max_threads(); }

}  // namespace ie
