#include "tools/common/metrics.h"

#include <algorithm>
#include <cmath>

#include "engine/core/dtype_dispatch.h"

namespace ie::cli {

namespace {
// Row r, column c of a 2-D float tensor, as double.
template <class Fn>
void for_rows(const Tensor& t, Fn&& fn) {
  if (t.rank() != 2) throw Error(ErrorKind::BadInput, "expected [N, classes] scores, got shape " + shape_to_string(t.shape()));
  dispatch_float(t.dtype(), "scores", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data_as<T>();
    std::vector<double> row(static_cast<size_t>(t.dim(1)));
    for (int64_t r = 0; r < t.dim(0); ++r) {
      for (int64_t c = 0; c < t.dim(1); ++c) row[c] = static_cast<double>(p[r * t.dim(1) + c]);
      fn(r, row);
    }
  });
}
}  // namespace

std::vector<int64_t> argmax_rows(const Tensor& scores) {
  std::vector<int64_t> out(static_cast<size_t>(scores.rank() ? scores.dim(0) : 0));
  for_rows(scores, [&](int64_t r, const std::vector<double>& row) {
    out[r] = std::max_element(row.begin(), row.end()) - row.begin();
  });
  return out;
}

std::vector<int64_t> labels_as_int64(const Tensor& labels, int64_t n, const std::string& what) {
  if (labels.rank() != 1 || labels.dim(0) != n)
    throw Error(ErrorKind::BadInput, what + ": expected " + std::to_string(n) + " labels (shape [" + std::to_string(n) +
                                         "]), got shape " + shape_to_string(labels.shape()));
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (!is_integer(labels.dtype()))
    throw Error(ErrorKind::BadInput, what + ": labels must be integers, got " + dtype_name(labels.dtype()));
  dispatch_numeric(labels.dtype(), "labels", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int64_t>(labels.data_as<T>()[i]);
  });
  return out;
}

double accuracy(const std::vector<int64_t>& predictions, const std::vector<int64_t>& labels) {
  if (predictions.empty()) return 0;
  int64_t hits = 0;
  for (size_t i = 0; i < predictions.size(); ++i) hits += predictions[i] == labels[i];
  return static_cast<double>(hits) / static_cast<double>(predictions.size());
}

double mean_squared_error(const Tensor& a, const Tensor& b, const std::string& what) {
  if (a.numel() != b.numel() || a.numel() == 0)
    throw Error(ErrorKind::BadInput, what + ": shapes " + shape_to_string(a.shape()) + " and " +
                                         shape_to_string(b.shape()) + " do not match");
  double sum = 0;
  dispatch_float(a.dtype(), "mse", [&](auto ta) {
    using A = typename decltype(ta)::type;
    dispatch_float(b.dtype(), "mse target", [&](auto tb) {
      using B = typename decltype(tb)::type;
      for (int64_t i = 0; i < a.numel(); ++i) {
        double d = static_cast<double>(a.data_as<A>()[i]) - static_cast<double>(b.data_as<B>()[i]);
        sum += d * d;
      }
    });
  });
  return sum / static_cast<double>(a.numel());
}

int64_t count_non_finite(const Tensor& t) {
  if (!is_float(t.dtype())) return 0;
  int64_t bad = 0;
  dispatch_float(t.dtype(), "finite check", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < t.numel(); ++i) bad += !std::isfinite(static_cast<double>(t.data_as<T>()[i]));
  });
  return bad;
}

std::vector<std::vector<std::pair<int64_t, double>>> top_k_rows(const Tensor& scores, int64_t k) {
  std::vector<std::vector<std::pair<int64_t, double>>> out;
  for_rows(scores, [&](int64_t, const std::vector<double>& row) {
    std::vector<std::pair<int64_t, double>> items;
    for (size_t c = 0; c < row.size(); ++c) items.emplace_back(static_cast<int64_t>(c), row[c]);
    int64_t kk = std::min<int64_t>(k, static_cast<int64_t>(items.size()));
    std::partial_sort(items.begin(), items.begin() + kk, items.end(),
                      [](auto& a, auto& b) { return a.second > b.second; });
    items.resize(static_cast<size_t>(kk));
    out.push_back(std::move(items));
  });
  return out;
}

}  // namespace ie::cli
