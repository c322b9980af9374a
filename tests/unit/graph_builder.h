// Builds ie::Graph in memory for planner, folding and fusion tests, plus helpers that plan, run and compare it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/planner/plan.h"

namespace ie::test {

class GraphBuilder {
 public:
  explicit GraphBuilder(int64_t opset = 17);
  /// Graph input; a dim of -1 is symbolic (named "batch").
  GraphBuilder& input(const std::string& name, Shape dims, DType dtype = DType::Float32);
  /// Graph output (type and shape come from inference).
  GraphBuilder& output(const std::string& name, DType dtype = DType::Float32);
  GraphBuilder& constant(const std::string& name, Tensor value);
  /// Appends a node named `name` (default: op + "_" + index); returns it for further edits.
  Node& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
             Attributes attrs = {}, const std::string& name = "");
  /// The graph, topologically sorted.
  Graph build();

 private:
  Graph m_graph;
};

/// Float32 constant helpers.
Tensor scalar_f32(float v);
Tensor f32_tensor(Shape shape, const std::vector<float>& values);
Tensor i64_tensor(Shape shape, const std::vector<int64_t>& values);

/// Plans `g` on the CPU backend for `shapes`, skipping the named fusion rules ("all" skips every rule).
std::unique_ptr<Plan> plan_cpu(const Graph& g, const std::map<std::string, Shape>& shapes,
                               std::set<std::string> disabled_fusions = {});
/// Runs a plan (inputs in, every step, outputs out in graph output order).
std::vector<Tensor> run_plan(Plan& plan, const std::map<std::string, Tensor>& inputs);
/// Evaluates the graph node by node with run_node_cpu (no planner, no arena); graph outputs in order.
std::vector<Tensor> run_node_by_node(const Graph& g, const std::map<std::string, Tensor>& inputs);
/// Runs `g` through the public API (Engine::from_graph + Session) on the CPU.
std::vector<Tensor> run_engine(const Graph& g, const std::map<std::string, Tensor>& inputs, Options options = {});

/// Steps whose op (domain.op for non-default domains) is `op`.
std::vector<const Step*> steps_of(const Plan& plan, const std::string& op);
/// The ops of every step, in order ("Relu", "ie.Linear" ...).
std::vector<std::string> step_ops(const Plan& plan);

/// `v` in ascending order (to compare a fused node's covers).
std::vector<std::string> sorted(std::vector<std::string> v);
/// Runs `g` through the engine with every rule, with fusion off and with `rule` alone off, and checks that every
/// output agrees within `tol` (max abs).
void check_fused_equals_unfused(const Graph& g, const std::map<std::string, Tensor>& inputs, const std::string& rule,
                                double tol = 1e-5);

/// Largest |a - b| over all elements of two float tensors of the same shape (infinity on a shape mismatch).
double max_abs_diff(const Tensor& a, const Tensor& b);
/// ||got - want|| / ||want|| of two float32 tensors of the same shape (infinity on a shape or type mismatch).
double rel_l2(const Tensor& got, const Tensor& want);

}  // namespace ie::test
