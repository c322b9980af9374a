// Runs one node on two paths (by default cuda-reference against cpu; also cuda against cuda-reference, or one
// kernel set against another) with the same inputs and checks every output of the first against the second
// within a tolerance; the message names the case and both paths, so a failure says which op and shape broke.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "engine/backend/kernel_sets.h"
#include "engine/core/float_convert.h"
#include "gpu_test_util.h"

namespace ie::test {

struct Tolerance {
  double atol, rtol;
};

/// The fused kernels without Tensor Core products (LayerNorm, attention) against the CPU's fp32, for outputs of
/// O(1): fp32 and tf32 float arithmetic in another order (1e-5 / 1e-4); fp16 and bf16 the inputs' and the output's
/// rounding in 16 bits (2^-11 / 2^-8 relative, amplified up to a few times by the op: normalization by a small
/// deviation, a softmax's exponent).
inline Tolerance fused_tolerance(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return {1e-5, 1e-4};
    case Precision::fp16:
      return {5e-3, 5e-3};
    default:
      return {3e-2, 2e-2};
  }
}

/// Checks every output of `got` against `want` (same count, dtype and shape; values within the tolerance).
inline void check_outputs_match(const std::vector<Tensor>& got, const std::vector<Tensor>& want, Tolerance tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double ratio = tolerance_ratio(got[i], want[i], tol.atol, tol.rtol);
    INFO("output ", i, ": worst error / tolerance = ", ratio);
    CHECK(ratio <= 1.0);
  }
}

/// Compares `node` on path `a` with path `b`; `constant` flags inputs that become initializers (weights).
inline void check_paths_match(const std::string& what, const Node& node, const std::vector<Tensor>& inputs,
                              const std::vector<bool>& constant, Tolerance tol, int64_t opset, const Path& a,
                              const Path& b) {
  INFO(what, " (", a.label(), " against ", b.label(), ")");
  check_outputs_match(run_node_on(a, node, inputs, constant, opset), run_node_on(b, node, inputs, constant, opset),
                      tol);
}

/// Compares cuda-reference in `precision` with cpu on `node`.
inline void check_matches_cpu(const std::string& what, const Node& node, const std::vector<Tensor>& inputs,
                              const std::vector<bool>& constant, Tolerance tol, int64_t opset = 17,
                              Precision precision = Precision::fp32) {
  check_paths_match(what, node, inputs, constant, tol, opset, Path{kernel_set::kCudaReference, "", precision},
                    Path{kernel_set::kCpu});
}

/// Compares a graph with its fusions applied against the same graph unfused, both on `path`: a fused op
/// against the nodes it replaced.
inline void check_fused_matches_unfused(const std::string& what, const Graph& graph,
                                        const std::map<std::string, Tensor>& feeds, const Path& path, Tolerance tol) {
  Path unfused = path;
  unfused.fuse = false;
  INFO(what, " (", path.label(), " fused against unfused)");
  check_outputs_match(run_graph_on(path, graph, feeds), run_graph_on(unfused, graph, feeds), tol);
}

/// NaN outputs per image (dimension 0) of a float tensor of any float type: the NaN tests check that a NaN put
/// in one image reaches its outputs and no other image's.
inline std::vector<int64_t> nans_per_image(const Tensor& out) {
  const Tensor y = convert_floats(out, DType::Float32);
  const int64_t images = y.shape()[0], per_image = y.numel() / images;
  std::vector<int64_t> nans(static_cast<size_t>(images), 0);
  for (int64_t i = 0; i < y.numel(); ++i)
    if (std::isnan(y.data_as<float>()[i])) ++nans[static_cast<size_t>(i / per_image)];
  return nans;
}

/// Seeds that differ per case, so no two tensors of a test share their values.
inline unsigned seed_of(const std::string& what, unsigned salt) {
  unsigned h = 2166136261u;
  for (char c : what) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h ^ (salt * 0x9e3779b9u);
}

}  // namespace ie::test
