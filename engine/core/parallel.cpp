#include "engine/core/parallel.h"

#include <omp.h>

#include <thread>

namespace ie {

void set_cpu_threads(int threads) {
  int n = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  omp_set_num_threads(n > 0 ? n : 1);
}

int cpu_threads() { return omp_get_max_threads(); }

}  // namespace ie
