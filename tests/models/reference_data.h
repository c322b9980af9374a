// Access to weights/ and weights/reference/ (PyTorch outputs in float64) for the end-to-end model tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/api/engine.h"

namespace ie::test {

/// <source>/weights/<name>
std::string weights_path(const std::string& name);
/// <source>/configs/<name>
std::string config_path(const std::string& name);
/// Loads weights/reference/<name> (.npy).
Tensor reference(const std::string& name);
/// weights/reference/manifest.json
const nlohmann::json& manifest();

struct Diff {
  double max_abs = 0;
  double rel_l2 = 0;   // ||got - want|| / ||want||
};
/// Compares a float32 result with a float32 or float64 reference of the same element count.
Diff diff(const Tensor& got, const Tensor& want);

}  // namespace ie::test
