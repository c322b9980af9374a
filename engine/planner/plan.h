// An execution plan: the fused schedule bound to one backend's kernels, and one arena for every tensor.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/backend/constant_store.h"
#include "engine/core/limits.h"
#include "engine/ir/graph.h"
#include "engine/planner/fusion.h"
#include "engine/registry/op_def.h"

namespace ie {

/// Where a tensor lives while the plan runs.
struct Slot {
  std::string name;
  TensorInfo info;
  bool is_constant = false;
  size_t offset = 0;              // in the arena, when not constant
  const void* constant = nullptr; // backend pointer, when constant
};

struct Step {
  Node node;
  std::unique_ptr<Kernel> kernel;
  std::string kernel_set;               // the set that served the node (engine/backend/kernel_sets.h)
  std::vector<std::string> declined;    // earlier sets of the backend that passed, each "set: why"
  std::vector<int> inputs;    // slot indices, -1 for an absent optional input
  std::vector<int> outputs;   // slot indices, -1 for an unused optional output
  size_t workspace_offset = 0;
  size_t workspace_bytes = 0;
  KernelContext ctx;          // pointers bound once the arena exists
};

/// A view node left out of the schedule: its output shares its input's buffer, so it has nothing to run.
struct ElidedView {
  Node node;
  int input = -1;   // slot
  int output = -1;  // slot, at the input's offset
};

struct Plan {
  Graph graph;                          // after folding and fusion
  std::shared_ptr<Backend> backend;
  std::vector<Slot> slots;
  std::map<std::string, int> slot_of;
  std::vector<Step> steps;
  std::vector<ElidedView> views;        // in graph order; `inspect` lists them under the schedule
  std::vector<int> input_slots;         // graph input order
  std::vector<int> output_slots;        // graph output order
  std::map<std::string, Shape> input_shapes;
  std::set<std::string> bound_inputs;     // graph inputs folded in as plan-time values
  size_t arena_bytes = 0;
  size_t tensor_bytes = 0;              // sum of all arena tensors without reuse
  size_t folded_nodes = 0;
  size_t removed_nodes = 0;
  size_t onnx_nodes = 0;
  FusionReport fusion;
  Precision precision = Precision::fp32;
  std::vector<std::string> kernel_sets;  // tried in this order for every node
  size_t precision_casts = 0;           // Cast steps the precision pass placed (graph edges, fallback kernels)
  std::shared_ptr<ConstantStore> store;  // keeps prepared constants alive as long as the plan
  void* arena = nullptr;
  // Replay (PlanOptions::graphs): the first run goes step by step, the second records the steps, later runs
  // replay the recording. A backend that cannot record, or a step that cannot be recorded, turns it off.
  bool graphs = false;
  bool graph_off = false;
  int eager_runs = 0;
  std::unique_ptr<CapturedWork> recording;  // last member: released before anything it refers to

  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan();

  /// Backend pointer of a slot's data.
  void* slot_data(int slot) const;
};

struct PlanOptions {
  std::set<std::string> disabled_fusions;
  Precision precision = Precision::fp32;
  /// Kernel sets to try, in order; empty: the backend's own list. Tests use it to pin one set of a backend.
  std::vector<std::string> kernel_sets;
  /// Engine-wide constants (precision-converted weights, kernel-prepared layouts); null: one private to the plan.
  std::shared_ptr<ConstantStore> store;
  /// What the model may ask for (Options::limits); checked before kernels are made and before the arena exists.
  Limits limits;
  /// Replay the steps as one recorded unit (a CUDA graph) from the second run on, where the backend can.
  bool graphs = true;
};

/// Graph inputs whose values are bound at plan time (shape-tensor inputs), by name.
using BoundValues = std::map<std::string, Tensor>;

/// Plans `model` for concrete input shapes on `backend`. Throws Error naming the node, op or tensor.
std::unique_ptr<Plan> build_plan(const Graph& model, const std::map<std::string, Shape>& input_shapes,
                                 std::shared_ptr<Backend> backend, const PlanOptions& options,
                                 const BoundValues& bound = {});

/// Graph summary, fused schedule (each step with the nodes it replaced) and memory plan, for `inspect`.
std::string describe_plan(const Plan& plan);

}  // namespace ie
