// Runs a plan: copies inputs into the arena, runs each step's kernel, calls the observer, copies outputs out.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/planner/plan.h"

namespace ie {

/// Fails naming the first of `inputs` that is neither declared nor in `also_allowed`, listing the declared inputs.
void check_input_names(const std::vector<TensorDecl>& declared, const std::set<std::string>& also_allowed,
                       const std::map<std::string, Tensor>& inputs);
/// Copies the named inputs into the plan's arena after checking names, dtypes and shapes.
void load_inputs(Plan& plan, const std::map<std::string, Tensor>& inputs);
/// Runs every step in order; `observer` (may be empty) is called after each, `timer` (may be null) brackets each.
void run_steps(Plan& plan, const StepObserver& observer, StepTimer* timer = nullptr);
/// Copies the graph outputs back to host tensors, in graph output order (synchronizing the backend first).
std::vector<Tensor> fetch_outputs(Plan& plan);
/// Copies graph output `index` into `host_dst` (nbytes of its slot) with Backend::copy_out_async: without waiting
/// when the destination is page-locked, so it is only complete at the backend's next fence.
void fetch_output_async(Plan& plan, size_t index, void* host_dst);
/// Host copy of any tensor of the plan (for Session::peek and per-layer comparison).
Tensor fetch_slot(Plan& plan, int slot);

}  // namespace ie
