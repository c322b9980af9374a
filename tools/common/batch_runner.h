// Runs N samples through a pipeline in batches along dimension 0 and gathers the outputs into full tensors.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/api/pipeline.h"
#include "tools/common/progress.h"

namespace ie::cli {

struct BatchRun {
  std::vector<Tensor> outputs;  // graph output order, each [N, ...]
  int64_t samples = 0;
  int64_t batches = 0;
  double seconds = 0;  // wall time of the stream of batches (copies in and out included, setup not)
};

/// The number of samples the inputs share along dimension 0; throws Error(BadInput) for scalars, disagreeing
/// counts or no samples.
int64_t sample_count(const std::map<std::string, Tensor>& inputs);
/// One input set per distinct batch shape of a run (the first batch, and a shorter last one): what
/// Pipeline::prepare needs so that the run itself pays no planning or tuning.
std::vector<std::map<std::string, Tensor>> batch_examples(const std::map<std::string, Tensor>& inputs,
                                                          int64_t batch_size);

/// `inputs` all share dimension 0 (N samples). Batches of `batch_size` rows (the last may be smaller) stream
/// through `pipeline`; each batch's outputs land in their rows of the full outputs. Throws Error(BadInput) when an
/// output does not carry the batch and more than one batch was run.
BatchRun run_in_batches(Pipeline& pipeline, const std::map<std::string, Tensor>& inputs, int64_t batch_size,
                        ProgressBar* progress);

}  // namespace ie::cli
