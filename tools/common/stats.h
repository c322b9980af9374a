// Summary statistics of timing samples: percentiles, mean, coefficient of variation.
#pragma once

#include <vector>

namespace ie::cli {

struct LatencyStats {
  int runs = 0;
  double p50 = 0, p90 = 0, p99 = 0, max = 0, min = 0, mean = 0;
  double cv = 0;  // standard deviation / mean
};

/// Nearest-rank percentile (q in [0, 100]) of unsorted samples; 0 for none.
double percentile(std::vector<double> samples, double q);
/// Median of unsorted samples (mean of the two middle values for an even count).
double median(std::vector<double> samples);
LatencyStats summarize(const std::vector<double>& samples);

}  // namespace ie::cli
