// Batches in flight: a stream of batches through one engine, read ahead on a thread, several batches on the device
// at once, outputs handed back in batch order.
//
//   ie::Pipeline pipe(engine);             // depth 2: batch i+1 uploads while batch i computes
//   pipe.prepare({first_batch});           // plans, algorithm search, graph recording: setup, not run time
//   pipe.run([&](size_t i, ie::TensorMap& in) { if (i == count) return false; in = batch(i); return true; },
//            [&](size_t i, std::vector<ie::Tensor>& out) { consume(i, out); });
//
// On GPU backends each batch in flight has its own session (stream, arena, plan), page-locked staging for inputs
// and outputs allocated once and reused, and a fence (a CUDA event) that says when its outputs are home: the upload
// of one batch overlaps another's kernels and a third's download, and nothing synchronizes the whole device. On the
// CPU the same interface reads ahead on a thread while the cores compute one batch at a time. An engine made for
// several GPUs (Options::devices) gets sessions on each, and the batches are dealt to them in turn.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie {

using TensorMap = std::map<std::string, Tensor>;

struct PipelineOptions {
  int depth = 2;       // batches on each device at once on GPU backends (1: one after another); the CPU runs one
  int read_ahead = 2;  // batches the reader thread may hold ready beyond those in flight
};

/// What a run did; `seconds` spans the first read to the last output handed back.
struct PipelineStats {
  size_t batches = 0;
  int64_t samples = 0;  // dimension 0 of the inputs (the first by name), summed over the batches
  double seconds = 0;
  double reader_wait_s = 0;  // time the device side waited for the reader (reading is the bottleneck if large)
};

/// Pipeline::prepare's time by phase (seconds; the slowest session's where sessions prepare at once).
struct PrepareStats {
  double plan_s = 0;       // planning every example shape (fusion, kernel choice, weight packing and upload)
  double first_run_s = 0;  // the first runs: kernel module loading, algorithm search and tuning, first-use costs
  double warm_run_s = 0;   // the second runs (CUDA graph recording where the backend replays graphs)
  double staging_s = 0;    // page-locked staging for the batches' inputs and outputs
  double total_s = 0;      // all of prepare(), sessions dropped as not paying back included
};

/// Fills the inputs of batch `index` (0, 1, ...); returns false when there are no more. Runs on the reader thread.
using BatchReader = std::function<bool(size_t index, TensorMap& inputs)>;
/// Receives batch `index`'s outputs (graph output order) on the thread that called run(), in batch order.
using BatchSink = std::function<void(size_t index, std::vector<Tensor>& outputs)>;
/// Returns host tensors for batch `index`'s outputs to land in, one per graph output with exactly the dtypes and
/// shapes of `outputs` (concrete dims); page-locked ones (Pipeline::allocate_host_tensor) are filled by DMA directly.
using BatchDestination = std::function<std::vector<Tensor>(size_t index, const std::vector<TensorDecl>& outputs)>;

class Pipeline {
 public:
  explicit Pipeline(const Engine& engine, PipelineOptions options = {});
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  /// Reads with `read` until it returns false, runs every batch and hands each one's outputs to `done`. Without a
  /// `destination` the outputs come in new tensors. An error in any stage (reading, running, done, destination)
  /// stops the stream: the batches before the failed one have been handed to `done`, none after it, and the error
  /// is rethrown with its kind and the batch index in its message.
  PipelineStats run(const BatchReader& read, const BatchSink& done, const BatchDestination& destination = {});
  /// Plans each given input set in every session of the pipeline and, on GPU backends, runs it twice (algorithm
  /// search, tuning, CUDA graph recording), so that run() pays none of it. Optional: run() plans new shapes as
  /// they come. `batches`, when known (> 0): the run's batch count; sessions beyond one per device are then kept
  /// only if the batches' run time could repay their preparation (a short run does not need them; sessions()
  /// says how many remain).
  /// Returns where the preparation's time went.
  PrepareStats prepare(const std::vector<TensorMap>& examples, size_t batches = 0);
  /// A zero-filled host tensor in the memory the backend copies fastest (page-locked on GPU backends).
  Tensor allocate_host_tensor(DType dtype, std::vector<int64_t> shape);
  /// Sessions that hold batches in flight: depth per device on GPU backends, one per device on the CPU.
  size_t sessions() const;
  /// Devices the batches are split across (the engine's Options::devices), batch i on the (i % devices)-th.
  size_t devices() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> m_impl;
};

}  // namespace ie
