#include "tools/common/batch_runner.h"

#include <chrono>
#include <cstring>

namespace ie::cli {

BatchRun run_in_batches(Session& session, const std::map<std::string, Tensor>& inputs, int64_t batch_size,
                        ProgressBar* progress) {
  if (inputs.empty()) throw Error(ErrorKind::Usage, "no inputs given");
  int64_t n = -1;
  for (auto& [name, t] : inputs) {
    if (t.rank() == 0) throw Error(ErrorKind::BadInput, "input '" + name + "' is a scalar; expected a batch of samples");
    if (n >= 0 && t.dim(0) != n)
      throw Error(ErrorKind::BadInput, "inputs disagree on the number of samples: '" + name + "' has " +
                                           std::to_string(t.dim(0)) + ", others " + std::to_string(n));
    n = t.dim(0);
  }
  if (n == 0) throw Error(ErrorKind::BadInput, "the input holds no samples (empty batch)");
  if (batch_size <= 0 || batch_size > n) batch_size = n;
  BatchRun run;
  run.samples = n;
  auto start = std::chrono::steady_clock::now();
  for (int64_t b = 0; b < n; b += batch_size) {
    int64_t e = std::min(n, b + batch_size);
    std::map<std::string, Tensor> batch;
    for (auto& [name, t] : inputs) batch[name] = t.slice_rows(b, e);
    std::vector<Tensor> outs = session.run_ordered(batch);
    if (run.outputs.empty()) {
      for (auto& o : outs) {
        bool batched = o.rank() > 0 && o.dim(0) == e - b;
        if (!batched && e - b != n)
          throw Error(ErrorKind::BadInput, "an output of shape " + shape_to_string(o.shape()) +
                                               " does not have the batch as its first dimension; run the whole input "
                                               "at once (--batch-size " + std::to_string(n) + ")");
        if (e - b == n) {
          run.outputs.push_back(o);
          continue;
        }
        std::vector<int64_t> shape = o.shape();
        shape[0] = n;
        run.outputs.emplace_back(o.dtype(), shape);
      }
    }
    if (e - b != n)
      for (size_t i = 0; i < outs.size(); ++i) {
        size_t row = outs[i].nbytes() / static_cast<size_t>(e - b);
        std::memcpy(static_cast<char*>(run.outputs[i].data()) + row * b, outs[i].data(), outs[i].nbytes());
      }
    ++run.batches;
    if (progress) progress->update(e);
  }
  if (progress) progress->finish();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace ie::cli
