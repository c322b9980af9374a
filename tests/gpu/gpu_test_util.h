// Helpers for GPU tests: skip cleanly without a usable GPU, run one node on any backend, compare tensors.
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/api/engine.h"
#include "engine/core/shape.h"
#include "engine/ir/graph.h"

namespace ie::test {

/// True when a CUDA backend can run here; otherwise the reason is printed once.
bool gpu_available();

/// One way to run a model: a backend, optionally pinned to one of its kernel sets, in a precision mode, fused or
/// not. Tests compare two paths: cuda-reference against cpu, cuda against cuda-reference, a fused op against its
/// unfused graph.
struct Path {
  std::string backend;
  std::string kernel_set;  // "" = the backend's own ordered list
  Precision precision = Precision::fp32;
  bool fuse = true;  // graphs only: a single node never fuses
  std::string label() const;
};

/// Runs `node` alone on `path`. Inputs flagged in `constant` become initializers (weights), the others graph
/// inputs copied in at run time. Returns the node's outputs as host tensors.
std::vector<Tensor> run_node_on(const Path& path, const Node& node, const std::vector<Tensor>& inputs,
                                const std::vector<bool>& constant = {}, int64_t opset = 20);
/// As above on a backend's own kernel sets.
std::vector<Tensor> run_node_on(const std::string& backend, const Node& node, const std::vector<Tensor>& inputs,
                                const std::vector<bool>& constant = {}, int64_t opset = 20,
                                Precision precision = Precision::fp32);
/// Runs a whole graph on `path` (fusion rules applied when path.fuse); outputs in the graph's order.
std::vector<Tensor> run_graph_on(const Path& path, const Graph& graph, const std::map<std::string, Tensor>& feeds);

/// The kernel set that serves the first (`last`: the last) step of op `op_type` (without domain) in the plan of `g` on
/// the cuda backend in mode `p`, or "(no <op> step)". Tests pin fused kernels with it: a decline would otherwise pass
/// on the reference kernels.
std::string kernel_set_serving(const Graph& g, const std::map<std::string, Shape>& shapes, Precision p,
                               const std::string& op_type, bool last = false);

/// Sets an environment variable for one scope, restoring its previous state afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value);
  ~ScopedEnv();

 private:
  const char* m_name;
  bool m_had = false;
  std::string m_old;
};

/// The text of a file ("" when it cannot be read).
std::string read_text(const std::string& path);

/// Float tensor of the given shape with values uniform in [lo, hi), seeded.
Tensor random_uniform(std::vector<int64_t> shape, unsigned seed, float lo = -1.f, float hi = 1.f);

/// A graph output declared by name alone (type and shape come from inference): test graphs' "y".
TensorDecl inferred_output(const std::string& name);

/// Max |a-b| / (atol + rtol*|b|) over all elements; <= 1 passes. Fails the current test on a shape/dtype mismatch.
double tolerance_ratio(const Tensor& got, const Tensor& want, double atol, double rtol);

}  // namespace ie::test

/// Skips the rest of the test case when no GPU is usable (the binary then exits with the skip code).
#define IE_REQUIRE_GPU()                 \
  do {                                   \
    if (!::ie::test::gpu_available()) {  \
      MESSAGE("no usable GPU: skipped"); \
      return;                            \
    }                                    \
  } while (0)
