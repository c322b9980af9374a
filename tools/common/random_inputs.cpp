#include "tools/common/random_inputs.h"

#include <random>

#include "engine/core/dtype_dispatch.h"

namespace ie::cli {

namespace {

void fill(Tensor& t, std::mt19937_64& rng) {
  const int64_t n = t.numel();
  switch (t.dtype()) {
    case DType::UInt8: {
      std::uniform_int_distribution<int> d(0, 255);
      for (int64_t i = 0; i < n; ++i) t.data_as<uint8_t>()[i] = static_cast<uint8_t>(d(rng));
      return;
    }
    case DType::Bool: {
      std::bernoulli_distribution d(0.5);
      for (int64_t i = 0; i < n; ++i) t.data_as<bool>()[i] = d(rng);
      return;
    }
    default:
      break;
  }
  if (is_float(t.dtype())) {
    std::uniform_real_distribution<double> d(0.0, 1.0);
    dispatch_float(t.dtype(), "random input", [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0; i < n; ++i) t.data_as<T>()[i] = static_cast<T>(d(rng));
    });
    return;
  }
  std::uniform_int_distribution<int> d(0, 9);
  dispatch_numeric(t.dtype(), "random input", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i) t.data_as<T>()[i] = static_cast<T>(d(rng));
  });
}

}  // namespace

std::map<std::string, Tensor> random_inputs(const std::vector<TensorDecl>& decls, int64_t batch, uint64_t seed) {
  std::map<std::string, Tensor> out;
  std::mt19937_64 rng(seed);
  for (auto& d : decls) {
    if (!d.has_shape) throw Error(ErrorKind::Usage, "input '" + d.name + "' has no declared shape: give --input files");
    std::vector<int64_t> shape = d.dims;
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] < 0) {
        if (i != 0)
          throw Error(ErrorKind::Usage, "input '" + d.name + "' has a symbolic dimension " + std::to_string(i) +
                                            " besides the batch: give --input files");
        shape[i] = batch;
      }
    Tensor t(d.dtype, shape);
    fill(t, rng);
    out[d.name] = t;
  }
  return out;
}

}  // namespace ie::cli
