// Runs one node on "cuda-reference" and on "cpu" with the same inputs and checks every output against the CPU's
// within a tolerance; the message names the case, so a failure says which op and shape broke.
#pragma once

#include <string>
#include <vector>

#include "gpu_test_util.h"

namespace ie::test {

struct Tolerance {
  double atol, rtol;
};

/// Compares cuda-reference with cpu on `node`; `constant` flags inputs that become initializers (weights).
inline void check_matches_cpu(const std::string& what, const Node& node, const std::vector<Tensor>& inputs,
                              const std::vector<bool>& constant, Tolerance tol, int64_t opset = 17,
                              const std::string& precision = "fp32") {
  INFO(what, " (", precision, ")");
  std::vector<Tensor> want = run_node_on("cpu", node, inputs, constant, opset);
  std::vector<Tensor> got = run_node_on("cuda-reference", node, inputs, constant, opset, precision);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double ratio = tolerance_ratio(got[i], want[i], tol.atol, tol.rtol);
    INFO("output ", i, ": worst error / tolerance = ", ratio);
    CHECK(ratio <= 1.0);
  }
}

/// Seeds that differ per case, so no two tensors of a test share their values.
inline unsigned seed_of(const std::string& what, unsigned salt) {
  unsigned h = 2166136261u;
  for (char c : what) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h ^ (salt * 0x9e3779b9u);
}

}  // namespace ie::test
