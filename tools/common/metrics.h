// Task-level figures the tools report: classification accuracy, reconstruction MSE, non-finite checks, top-k.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie::cli {

/// Row-wise argmax of a [N, C] float tensor.
std::vector<int64_t> argmax_rows(const Tensor& scores);
/// Labels of any integer dtype as int64; throws Error(BadInput) naming `what` when not 1-D of length n.
std::vector<int64_t> labels_as_int64(const Tensor& labels, int64_t n, const std::string& what);
/// Fraction of predictions equal to the labels.
double accuracy(const std::vector<int64_t>& predictions, const std::vector<int64_t>& labels);
/// Mean squared error of two float tensors with the same element count.
double mean_squared_error(const Tensor& a, const Tensor& b, const std::string& what);
/// Number of NaN or Inf elements (0 for non-float dtypes).
int64_t count_non_finite(const Tensor& t);
/// The k best classes per row: (class index, score), best first.
std::vector<std::vector<std::pair<int64_t, double>>> top_k_rows(const Tensor& scores, int64_t k);

}  // namespace ie::cli
