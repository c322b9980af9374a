// Multi-threading for CPU kernels: OpenMP underneath, so Eigen's matrix products share the same threads.
#pragma once

#include <cstdint>
#include <string>

namespace ie {

/// The most worker threads a caller may ask for: 4x the hardware threads (oversubscription is useful for tests),
/// never more than 1024. Far beyond that OpenMP fails to create its pool or crashes.
int max_cpu_threads();
/// Throws Error(Usage) "<what> must be from 0 to N (4x the M hardware threads), got T" when threads is out of range.
void check_cpu_threads(int64_t threads, const std::string& what);
/// Sets the worker count for parallel regions started from the calling thread (0: OMP_NUM_THREADS, else all
/// cores); throws Error(Usage) when `threads` or OMP_NUM_THREADS is beyond max_cpu_threads().
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
