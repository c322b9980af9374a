#include "tools/common/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ie::cli {

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(q / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

LatencyStats summarize(const std::vector<double>& v) {
  LatencyStats s;
  if (v.empty()) return s;
  s.runs = static_cast<int>(v.size());
  s.p50 = median(v);
  s.p90 = percentile(v, 90);
  s.p99 = percentile(v, 99);
  s.max = *std::max_element(v.begin(), v.end());
  s.min = *std::min_element(v.begin(), v.end());
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - s.mean) * (x - s.mean);
  var /= static_cast<double>(v.size());
  s.cv = s.mean > 0 ? std::sqrt(var) / s.mean : 0;
  return s;
}

}  // namespace ie::cli
