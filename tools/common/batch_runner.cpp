#include "tools/common/batch_runner.h"

#include <algorithm>

namespace ie::cli {

int64_t sample_count(const std::map<std::string, Tensor>& inputs) {
  if (inputs.empty()) throw Error(ErrorKind::Usage, "no inputs given");
  int64_t n = -1;
  for (auto& [name, t] : inputs) {
    if (t.rank() == 0)
      throw Error(ErrorKind::BadInput, "input '" + name + "' is a scalar; expected a batch of samples");
    if (n >= 0 && t.dim(0) != n)
      throw Error(ErrorKind::BadInput, "inputs disagree on the number of samples: '" + name + "' has " +
                                           std::to_string(t.dim(0)) + ", others " + std::to_string(n));
    n = t.dim(0);
  }
  if (n == 0) throw Error(ErrorKind::BadInput, "the input holds no samples (empty batch)");
  return n;
}

namespace {
std::map<std::string, Tensor> rows_of(const std::map<std::string, Tensor>& inputs, int64_t begin, int64_t end) {
  std::map<std::string, Tensor> batch;
  for (auto& [name, t] : inputs) batch[name] = t.slice_rows(begin, end);
  return batch;
}
}  // namespace

std::vector<std::map<std::string, Tensor>> batch_examples(const std::map<std::string, Tensor>& inputs,
                                                          int64_t batch_size) {
  const int64_t n = sample_count(inputs);
  if (batch_size <= 0 || batch_size > n) batch_size = n;
  std::vector<std::map<std::string, Tensor>> examples{rows_of(inputs, 0, batch_size)};
  if (const int64_t tail = n % batch_size) examples.push_back(rows_of(inputs, n - tail, n));
  return examples;
}

BatchRun run_in_batches(Pipeline& pipeline, const std::map<std::string, Tensor>& inputs, int64_t batch_size,
                        ProgressBar* progress) {
  const int64_t n = sample_count(inputs);
  if (batch_size <= 0 || batch_size > n) batch_size = n;
  BatchRun run;
  run.samples = n;
  auto rows = [&](size_t i) {
    const int64_t begin = static_cast<int64_t>(i) * batch_size;
    return std::make_pair(begin, std::min(n, begin + batch_size));
  };
  // Outputs are allocated whole when the first batch's shapes are known; each batch writes its own rows.
  auto destination = [&](size_t i, const std::vector<TensorDecl>& outs) {
    auto [begin, end] = rows(i);
    if (run.outputs.empty())
      for (auto& o : outs) {
        const bool batched = !o.dims.empty() && o.dims[0] == end - begin;
        if (!batched && end - begin != n)
          throw Error(ErrorKind::BadInput, "output '" + o.name + "' of shape " + shape_to_string(o.dims) +
                                               " does not have the batch as its first dimension; run the whole "
                                               "input at once (--batch-size " +
                                               std::to_string(n) + ")");
        std::vector<int64_t> full = o.dims;
        if (batched) full[0] = n;
        run.outputs.push_back(Tensor::uninitialized(o.dtype, full));  // every batch writes its rows
      }
    if (end - begin == n) return run.outputs;
    std::vector<Tensor> views;
    for (auto& t : run.outputs) views.push_back(t.slice_rows(begin, end));
    return views;
  };
  auto read = [&](size_t i, std::map<std::string, Tensor>& batch) {
    auto [begin, end] = rows(i);
    if (begin >= n) return false;
    batch = rows_of(inputs, begin, end);
    return true;
  };
  auto done = [&](size_t i, std::vector<Tensor>&) {
    ++run.batches;
    if (progress) progress->update(rows(i).second);
  };
  PipelineStats stats = pipeline.run(read, done, destination);
  if (progress) progress->finish();
  run.seconds = stats.seconds;
  return run;
}

}  // namespace ie::cli
