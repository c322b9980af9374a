#include "reference_data.h"

#include <cmath>
#include <fstream>

#include <doctest/doctest.h>

#include "engine/io/npy.h"

namespace ie::test {

std::string weights_path(const std::string& name) { return std::string(IE_SOURCE_DIR) + "/weights/" + name; }
std::string config_path(const std::string& name) { return std::string(IE_SOURCE_DIR) + "/configs/" + name; }

Tensor reference(const std::string& name) { return read_npy(weights_path("reference/" + name)); }

const nlohmann::json& manifest() {
  static nlohmann::json m = [] {
    std::ifstream in(weights_path("reference/manifest.json"));
    return nlohmann::json::parse(in);
  }();
  return m;
}

Diff diff(const Tensor& got, const Tensor& want) {
  REQUIRE(got.dtype() == DType::Float32);
  REQUIRE(got.numel() == want.numel());
  double num = 0, den = 0, worst = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    double w = want.dtype() == DType::Float64 ? want.data_as<double>()[i] : want.data_as<float>()[i];
    double d = got.data_as<float>()[i] - w;
    worst = std::max(worst, std::abs(d));
    num += d * d;
    den += w * w;
  }
  return Diff{worst, std::sqrt(num / (den > 0 ? den : 1))};
}

}  // namespace ie::test
