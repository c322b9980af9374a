// Runs a session over N samples in batches along dimension 0 and gathers the outputs into full tensors.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/api/engine.h"
#include "tools/common/progress.h"

namespace ie::cli {

struct BatchRun {
  std::vector<Tensor> outputs;  // graph output order, each [N, ...]
  int64_t samples = 0;
  int64_t batches = 0;
  double seconds = 0;           // wall time of the batch loop (copies in and out included)
};

/// `inputs` all share dimension 0 (N samples). Batches of `batch_size` rows (the last may be smaller) run
/// through `session`; outputs whose first dimension is the batch are concatenated. Throws Error(BadInput) when an
/// output does not carry the batch and more than one batch was run.
BatchRun run_in_batches(Session& session, const std::map<std::string, Tensor>& inputs, int64_t batch_size,
                        ProgressBar* progress);

}  // namespace ie::cli
