// The batch pipeline: a reader thread ahead of the device, sessions in flight in turn, outputs in batch order.
#include "engine/api/pipeline.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "engine/api/session_impl.h"
#include "engine/core/error.h"
#include "engine/core/parallel_copy.h"
#include "engine/executor/executor.h"

namespace ie {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// An ie::Error from stage `what` of batch `index`, keeping its kind; other exceptions become BadInput (a reader's
// own failure), except out-of-memory, which is passed on as it is.
[[noreturn]] void rethrow_for_batch(std::exception_ptr error, size_t index, const char* what) {
  const std::string where = "batch " + std::to_string(index) + " (" + what + "): ";
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    throw Error(e.kind(), where + e.what());
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(ErrorKind::BadInput, where + e.what());
  }
}

// Batches read ahead of the device: a bounded queue that the reader thread fills in batch order.
class ReadAhead {
 public:
  ReadAhead(const BatchReader& read, size_t capacity) : m_read(read), m_capacity(capacity ? capacity : 1) {
    m_thread = std::thread([this] { loop(); });
  }
  ~ReadAhead() { stop(); }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_stopped = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable()) m_thread.join();
  }

  /// The next batch: false at the end of the stream; a reading error is rethrown naming its batch.
  bool next(size_t* index, TensorMap* inputs, double* waited_s) {
    auto start = Clock::now();
    std::unique_lock<std::mutex> lock(m_mutex);
    m_cv.wait(lock, [&] { return !m_queue.empty(); });
    *waited_s += seconds_since(start);
    Item item = std::move(m_queue.front());
    m_queue.pop_front();
    lock.unlock();
    m_cv.notify_all();
    if (item.error) rethrow_for_batch(item.error, item.index, "reading");
    *index = item.index;
    *inputs = std::move(item.inputs);
    return item.more;
  }

 private:
  struct Item {
    size_t index = 0;
    bool more = false;
    TensorMap inputs;
    std::exception_ptr error;
  };

  void loop() {
    for (size_t i = 0;; ++i) {
      {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [&] { return m_stopped || m_queue.size() < m_capacity; });
        if (m_stopped) return;
      }
      Item item;
      item.index = i;
      try {
        item.more = m_read(i, item.inputs);
        if (item.more && item.inputs.empty()) fail(ErrorKind::Usage, "the reader gave no inputs");
      } catch (...) {
        item.error = std::current_exception();
      }
      const bool last = !item.more || item.error;
      {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_queue.push_back(std::move(item));
      }
      m_cv.notify_all();
      if (last) return;
    }
  }

  const BatchReader& m_read;
  const size_t m_capacity;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<Item> m_queue;
  bool m_stopped = false;
  std::thread m_thread;
};

// Page-locked host memory of one backend, grown on demand and reused from batch to batch.
struct HostBuffer {
  std::shared_ptr<void> memory;
  size_t bytes = 0;
  void* reserve(Backend& backend, size_t need) {
    if (need > bytes || !memory) {
      memory.reset();
      memory = backend.allocate_host(need);
      bytes = need;
    }
    return memory.get();
  }
};

// One session and the batch it holds in flight.
struct Lane {
  Session session;
  std::map<std::string, HostBuffer> input_staging;  // page-locked copies of pageable inputs
  std::vector<HostBuffer> output_staging;           // outputs whose destination is pageable land here first

  bool busy = false;
  size_t index = 0;
  TensorMap inputs;             // kept alive until the fence: the upload may still read them
  std::vector<Tensor> outputs;  // destinations (empty tensors are allocated on completion)
  std::vector<TensorDecl> decls;
  std::vector<bool> staged_output;  // output i waits in output_staging[i]
  std::unique_ptr<Fence> fence;

  explicit Lane(Session s) : session(std::move(s)) {}
  Backend& backend() { return *session.impl()->backend; }

  // Issues batch `index`: inputs staged and uploaded, the steps, the outputs' download, a fence behind them.
  void launch(size_t batch, TensorMap batch_inputs, const BatchDestination& destination) {
    Session::Impl& s = *session.impl();
    Backend& b = backend();
    Plan& plan = s.plan_for(batch_inputs);
    if (b.asynchronous())
      for (auto& [name, t] : batch_inputs) {
        if (b.page_locked(t.data())) continue;
        void* host = input_staging[name].reserve(b, t.nbytes());
        parallel_copy(host, t.data(), t.nbytes());
        t = Tensor(t.dtype(), t.shape(), std::shared_ptr<void>(input_staging[name].memory, host));
      }
    index = batch;
    inputs = std::move(batch_inputs);
    busy = true;
    try {
      load_inputs(plan, inputs);
      run_steps(plan, {}, s.annotator.get());
      fetch(plan, destination);
      fence = b.fence();
    } catch (...) {
      settle();
      throw;
    }
  }

  // Waits for the batch in flight and completes its outputs; the lane is free afterwards, even when this throws.
  std::vector<Tensor> complete() {
    try {
      fence->wait();
      for (size_t i = 0; i < outputs.size(); ++i) {
        if (!staged_output[i]) continue;
        if (outputs[i].empty()) outputs[i] = Tensor::uninitialized(decls[i].dtype, decls[i].dims);
        parallel_copy(outputs[i].data(), output_staging[i].memory.get(), outputs[i].nbytes());
      }
    } catch (...) {
      release();
      throw;
    }
    std::vector<Tensor> done = std::move(outputs);
    release();
    return done;
  }

  // Page-locked staging for batches shaped like `example` (its pageable inputs and every output), so that the
  // run never page-locks memory: cudaMallocHost took milliseconds of the first batches (the main job's run 8.5 ms
  // for 1.6 ms of device work).
  void reserve_staging(const TensorMap& example) {
    Backend& b = backend();
    if (!b.asynchronous()) return;
    for (auto& [name, t] : example)
      if (!b.page_locked(t.data())) input_staging[name].reserve(b, t.nbytes());
    const Plan& plan = session.impl()->plan_for(example);
    if (output_staging.size() < plan.output_slots.size()) output_staging.resize(plan.output_slots.size());
    for (size_t i = 0; i < plan.output_slots.size(); ++i) {
      const TensorInfo& info = plan.slots[plan.output_slots[i]].info;
      output_staging[i].reserve(b, static_cast<size_t>(checked_numel(info.shape)) * dtype_size(info.dtype));
    }
  }

  // Drops the batch in flight once the device is done with its buffers; errors are ignored (one was reported).
  void settle() {
    try {
      backend().synchronize();
    } catch (...) {
    }
    release();
  }

 private:
  void fetch(Plan& plan, const BatchDestination& destination) {
    Backend& b = backend();
    const size_t count = plan.output_slots.size();
    decls.assign(count, TensorDecl{});
    for (size_t i = 0; i < count; ++i) {
      const Slot& slot = plan.slots[plan.output_slots[i]];
      decls[i].name = plan.graph.outputs[i].name;
      decls[i].dtype = slot.info.dtype;
      decls[i].dims = slot.info.shape;
    }
    outputs.assign(count, Tensor());
    if (destination) {
      outputs = destination(index, decls);
      if (outputs.size() != count)
        fail(ErrorKind::Usage, "the destination gave ", outputs.size(), " tensors for ", count, " outputs");
      for (size_t i = 0; i < count; ++i)
        if (outputs[i].empty() || outputs[i].dtype() != decls[i].dtype || outputs[i].shape() != decls[i].dims)
          fail(ErrorKind::Usage, "the destination of output '", decls[i].name, "' must be ", dtype_name(decls[i].dtype),
               " ", shape_to_string(decls[i].dims), ", got ",
               outputs[i].empty()
                   ? std::string("no tensor")
                   : std::string(dtype_name(outputs[i].dtype())) + " " + shape_to_string(outputs[i].shape()));
    }
    staged_output.assign(count, false);
    if (output_staging.size() < count) output_staging.resize(count);
    for (size_t i = 0; i < count; ++i) {
      if (!b.asynchronous() && outputs[i].empty()) outputs[i] = Tensor::uninitialized(decls[i].dtype, decls[i].dims);
      if (!outputs[i].empty() && (!b.asynchronous() || b.page_locked(outputs[i].data()))) {
        fetch_output_async(plan, i, outputs[i].data());
        continue;
      }
      const size_t bytes = static_cast<size_t>(checked_numel(decls[i].dims)) * dtype_size(decls[i].dtype);
      fetch_output_async(plan, i, output_staging[i].reserve(b, bytes));
      staged_output[i] = true;
    }
  }

  void release() {
    busy = false;
    inputs.clear();
    outputs.clear();
    fence.reset();
  }
};

}  // namespace

struct Pipeline::Impl {
  PipelineOptions options;
  size_t devices = 1;
  std::vector<std::unique_ptr<Lane>> lanes;
};

Pipeline::Pipeline(const Engine& engine, PipelineOptions options) : m_impl(std::make_unique<Impl>()) {
  if (options.depth < 1 || options.depth > 16)
    fail(ErrorKind::Usage, "pipeline depth must be from 1 to 16, got ", options.depth);
  if (options.read_ahead < 1 || options.read_ahead > 64)
    fail(ErrorKind::Usage, "pipeline read-ahead must be from 1 to 64, got ", options.read_ahead);
  m_impl->options = options;
  // Sessions interleaved across the engine's devices, so that taking them in turn sends batch i to device
  // i % devices. A synchronous backend finishes each batch before the next starts: one session per device.
  const size_t devices = m_impl->devices = engine.device_count();
  for (size_t d = 0; d < devices; ++d) m_impl->lanes.push_back(std::make_unique<Lane>(engine.create_session(d)));
  if (m_impl->lanes[0]->backend().asynchronous())
    for (int k = 1; k < options.depth; ++k)
      for (size_t d = 0; d < devices; ++d) m_impl->lanes.push_back(std::make_unique<Lane>(engine.create_session(d)));
}

Pipeline::~Pipeline() = default;

size_t Pipeline::sessions() const { return m_impl->lanes.size(); }

size_t Pipeline::devices() const { return m_impl->devices; }

Tensor Pipeline::allocate_host_tensor(DType dtype, std::vector<int64_t> shape) {
  return m_impl->lanes[0]->session.allocate_host_tensor(dtype, std::move(shape));
}

PrepareStats Pipeline::prepare(const std::vector<TensorMap>& examples, size_t batches) {
  // Plans every example shape in a session; on a device, runs each twice (algorithm search, then the CUDA graph's
  // recording). The second runs' seconds are what one batch costs once set up.
  auto prepare_lane = [&examples](Lane& lane) {
    PrepareStats t;
    for (auto& inputs : examples) {
      auto start = Clock::now();
      lane.session.impl()->plan_for(inputs);
      t.plan_s += seconds_since(start);
      if (lane.backend().asynchronous()) {
        start = Clock::now();
        lane.session.run_ordered(inputs);
        t.first_run_s += seconds_since(start);
        start = Clock::now();
        lane.session.run_ordered(inputs);
        t.warm_run_s += seconds_since(start);
      }
      start = Clock::now();
      lane.reserve_staging(inputs);
      t.staging_s += seconds_since(start);
    }
    return t;
  };
  auto slowest = [](PrepareStats& a, const PrepareStats& b) {
    a.plan_s = std::max(a.plan_s, b.plan_s);
    a.first_run_s = std::max(a.first_run_s, b.first_run_s);
    a.warm_run_s = std::max(a.warm_run_s, b.warm_run_s);
    a.staging_s = std::max(a.staging_s, b.staging_s);
  };
  auto& lanes = m_impl->lanes;
  // Sessions are independent (own stream, handles, arena): they plan and warm up at once, each on a thread.
  // Returns the slowest phases among lanes [begin, end).
  auto prepare_lanes = [&](size_t begin, size_t end) {
    PrepareStats stats;
    if (end - begin == 1 || !lanes[0]->backend().asynchronous()) {
      for (size_t i = begin; i < end; ++i) slowest(stats, prepare_lane(*lanes[i]));
      return stats;
    }
    std::vector<std::exception_ptr> errors(end - begin);
    std::vector<PrepareStats> times(end - begin);
    std::vector<std::thread> threads;
    for (size_t i = begin; i < end; ++i)
      threads.emplace_back([&, i] {
        try {
          times[i - begin] = prepare_lane(*lanes[i]);
        } catch (...) {
          errors[i - begin] = std::current_exception();
        }
      });
    for (auto& t : threads) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
    for (auto& t : times) slowest(stats, t);
    return stats;
  };
  const auto start = Clock::now();
  const size_t devices = m_impl->devices;
  if (batches == 0 || lanes.size() <= devices) {
    PrepareStats stats = prepare_lanes(0, lanes.size());
    stats.total_s = seconds_since(start);
    return stats;
  }
  // A second session on a device can at most hide one batch's run under another's, so it pays back no more than
  // the run time of the batches it would overlap: when that is less than what preparing a session took, the extra
  // sessions are dropped (the README's main job: 10 batches, about 2 ms of run in all; a second session's setup cost
  // it 40-60 ms on an H200).
  PrepareStats stats = prepare_lanes(0, devices);
  const double prepare_s = seconds_since(start);
  const double batches_per_device = static_cast<double>((batches + devices - 1) / devices);
  if (batches_per_device * stats.warm_run_s < prepare_s) {
    lanes.resize(devices);
    stats.total_s = seconds_since(start);
    return stats;
  }
  slowest(stats, prepare_lanes(devices, lanes.size()));
  stats.total_s = seconds_since(start);
  return stats;
}

PipelineStats Pipeline::run(const BatchReader& read, const BatchSink& done, const BatchDestination& destination) {
  if (!read || !done) fail(ErrorKind::Usage, "Pipeline::run needs a reader and a sink");
  auto& lanes = m_impl->lanes;
  PipelineStats stats;
  const auto start = Clock::now();
  ReadAhead reader(read, static_cast<size_t>(m_impl->options.read_ahead));
  std::deque<Lane*> in_flight;  // oldest first
  auto complete_oldest = [&] {
    Lane* lane = in_flight.front();
    in_flight.pop_front();
    const size_t index = lane->index;
    std::vector<Tensor> outputs;
    try {
      outputs = lane->complete();
    } catch (...) {
      rethrow_for_batch(std::current_exception(), index, "running");
    }
    done(index, outputs);
  };
  // A batch that cannot be read or started is reported after every batch before it has been handed back.
  std::exception_ptr failure;
  try {
    for (size_t turn = 0;; ++turn) {
      size_t index = 0;
      TensorMap inputs;
      try {
        if (!reader.next(&index, &inputs, &stats.reader_wait_s)) break;
      } catch (...) {
        failure = std::current_exception();
        break;
      }
      Lane& lane = *lanes[turn % lanes.size()];
      while (lane.busy) complete_oldest();  // lanes are used in turn: the oldest batch is this lane's
      const int64_t rows = inputs.begin()->second.rank() ? inputs.begin()->second.dim(0) : 1;
      try {
        lane.launch(index, std::move(inputs), destination);
      } catch (...) {
        try {
          rethrow_for_batch(std::current_exception(), index, "starting");
        } catch (...) {
          failure = std::current_exception();
        }
        break;
      }
      in_flight.push_back(&lane);
      ++stats.batches;
      stats.samples += rows;
    }
    while (!in_flight.empty()) complete_oldest();
  } catch (...) {
    // A batch failed on the device or in `done`: nothing after it is handed back.
    for (Lane* lane : in_flight) lane->settle();
    reader.stop();
    throw;
  }
  reader.stop();
  if (failure) std::rethrow_exception(failure);
  stats.seconds = seconds_since(start);
  return stats;
}

}  // namespace ie
