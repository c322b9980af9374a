// Multi-threading for CPU kernels: OpenMP underneath, so Eigen's matrix products share the same threads.
#pragma once

#include <cstdint>

namespace ie {

/// Sets the worker count for parallel regions started from the calling thread (0: all cores).
void set_cpu_threads(int threads);
/// Worker count that parallel regions of the calling thread will use.
int cpu_threads();

/// Calls fn(begin, end) over [0, n) in chunks of at least `grain` items, in parallel when worthwhile.
template <class Fn>
void parallel_for(int64_t n, int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  int64_t chunks = (n + grain - 1) / grain;
  if (chunks <= 1) {
    fn(int64_t(0), n);
    return;
  }
  int64_t per = (n + chunks - 1) / chunks;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t b = c * per, e = b + per < n ? b + per : n;
    if (b < e) fn(b, e);
  }
}

}  // namespace ie
