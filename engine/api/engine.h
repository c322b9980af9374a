// Public interface of the inference engine: load an ONNX model, create sessions, run them on named tensors.
//
//   ie::Options opts;                       // backend "auto" | "cpu" | "cuda" | "cuda-reference", threads
//   opts.limits.max_arena_bytes = 64ull << 30;  // raise what a model may ask for (engine/core/limits.h)
//   opts.precision = ie::Precision::bf16;    // fp32 | tf32 | fp16 | bf16, as the backend implements
//   ie::Engine engine = ie::Engine::load("weights/convnet.onnx", opts);
//   ie::Session session = engine.create_session();   // one per thread
//   ie::Tensor x(ie::DType::Float32, {8, 1, 86, 86});
//   auto outputs = session.run({{"x", x}});          // name -> Tensor, in any order
//   const ie::Tensor& probs = outputs.at("probs");
//
// Every failure is an ie::Error whose kind() tells a CLI which exit code to use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/dtype.h"
#include "engine/core/exception.h"
#include "engine/core/limits.h"
#include "engine/core/precision.h"
#include "engine/core/tensor.h"

namespace ie {

struct Options {
  std::string backend = "auto";    // "cpu", "cuda" (fused kernels, then the reference ones), "cuda-reference", "auto"
  Precision precision = Precision::fp32;  // each backend implements some modes; others are refused by name
  int threads = 0;                 // the engine's CPU thread pool, caller included; 0 = OMP_NUM_THREADS or all
                                   // cores; at most 4x the hardware threads (1024)
  int64_t batch = 0;               // batch size to pre-plan for (0: plan on first run)
  bool fuse = true;                // apply the fusion rules
  bool cuda_graphs = true;         // replay a plan's steps as one CUDA graph from its second run (--no-graph)
  std::vector<std::string> disabled_fusions;  // rule names to skip (also IE_DISABLE_FUSIONS=a,b)
  // GPUs the engine serves on, one replica of the device state each (weights shared on the host, uploaded once
  // per device): create_session(i) runs on devices[i], and a Pipeline splits its batches across all of them.
  // Empty: the current device. The CPU backend is one device, 0. A device listed twice gets two replicas.
  std::vector<int> devices;
  Limits limits;                   // memory and work a model may ask for; beyond them planning fails naming the node
};

/// A graph input or output as declared by the model; symbolic dims have value -1 and a name.
struct TensorDecl {
  std::string name;
  DType dtype = DType::Undefined;
  std::vector<int64_t> dims;
  std::vector<std::string> dim_names;
  bool has_shape = true;  // false: the model does not declare the rank
};

/// Called after every executed step (profiling, per-layer comparison, debugging).
struct StepEvent {
  size_t index = 0;
  std::string name;                      // step name
  std::string op;                        // op type of the step (fused ops name their rule)
  std::vector<std::string> covers;       // original ONNX nodes the step replaced
  std::vector<std::string> output_names;
};
using StepObserver = std::function<void(const StepEvent&)>;

/// Per-step timing of a session (Session::profile): median of many runs after warm-up.
struct StepProfile {
  size_t index = 0;
  std::string name;                              // step (node) name
  std::string op;                                // op type, fused ops with their activation/pool
  std::string kernel_set;                        // the kernel set that served the step ("cuda", "cpu" ...)
  std::vector<std::string> covers;               // ONNX nodes the step replaced
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<std::vector<int64_t>> output_shapes;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double flops = 0;                              // arithmetic of one run of the step (cost model)
  double bytes = 0;                              // fewest bytes it must move (inputs read once, outputs written once)
};

struct ProfileReport {
  std::string backend;
  std::string device;                            // GPU or CPU name
  int iterations = 0;
  double total_ms = 0;                           // sum of the step medians
  std::vector<StepProfile> steps;
};

/// Where one run's time went (Session::run_timed, Session::run_staged), measured with the backend's step timer
/// (CUDA events on the session's stream on GPU backends, a steady clock on the CPU).
struct RunTiming {
  double load_ms = 0;     // inputs into the plan: host -> device, or device -> device for staged inputs
  double compute_ms = 0;  // every step of the plan
  double fetch_ms = 0;    // outputs device -> host (0 for staged runs, which fetch nothing)
  double wall_ms = 0;     // host wall clock of the whole call
};

class Session;
struct ModelConfig;
class Graph;

class Engine {
 public:
  /// Loads and validates the model; throws Error naming the file and what was wrong.
  static Engine load(const std::string& path, const Options& options = {});
  /// Loads the config's ONNX file; with `with_preprocessing` the graph's input becomes the config's raw input and
  /// its pre-processing steps run as engine ops in front of the model.
  static Engine load(const ModelConfig& config, const Options& options, bool with_preprocessing);

  Session create_session() const;
  /// A session on the engine's `index`-th device (Options::devices); index 0 is what create_session() uses.
  Session create_session(size_t index) const;
  /// How many devices the engine serves on (Options::devices' length, at least 1).
  size_t device_count() const;
  const std::vector<TensorDecl>& inputs() const;
  const std::vector<TensorDecl>& outputs() const;
  /// The backend that runs the sessions ("cpu", "cuda", "cuda-reference").
  std::string backend() const;
  /// Human-readable graph summary, fused schedule and memory plan for the given input shapes.
  std::string describe(const std::map<std::string, std::vector<int64_t>>& input_shapes) const;

  struct Impl;
  explicit Engine(std::shared_ptr<Impl> impl) : m_impl(std::move(impl)) {}
  /// Builds an engine from an already loaded graph (internal: the Graph type is not part of the public API).
  static Engine from_graph(Graph graph, const Options& options);
  const std::shared_ptr<Impl>& impl() const { return m_impl; }

 private:
  std::shared_ptr<Impl> m_impl;
};

/// Runs one model. A session is not thread-safe; make one per thread (they share the weights).
class Session {
 public:
  /// Runs the model; every graph input must be given with the declared dtype and a compatible shape.
  std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& inputs);
  /// As run(), outputs in the graph's output order.
  std::vector<Tensor> run_ordered(const std::map<std::string, Tensor>& inputs);
  /// Observer called after every step of later runs (nullptr to remove). It may call peek().
  void set_observer(StepObserver observer);
  /// Copy of an intermediate tensor of the current run; valid inside the observer only.
  Tensor peek(const std::string& tensor_name) const;
  /// Times every step separately (CUDA events on GPU backends, a steady clock on the CPU): `warmup` untimed runs,
  /// then `iterations` timed runs; each step's median, min and max. Timing never changes the plan.
  ProfileReport profile(const std::map<std::string, Tensor>& inputs, int warmup = 5, int iterations = 20);

  /// As run_ordered(), timing its three phases (copy in, steps, copy out). For end-to-end benchmarks:
  ///   ie::RunTiming t;  auto outs = session.run_timed(inputs, &t);  // t.load_ms, t.compute_ms, t.fetch_ms
  std::vector<Tensor> run_timed(const std::map<std::string, Tensor>& inputs, RunTiming* timing);
  /// A zero-filled host tensor in the memory this session's backend copies fastest (page-locked on GPU
  /// backends: copies in and out run as DMA without staging). Fill it and pass it to run().
  Tensor allocate_host_tensor(DType dtype, std::vector<int64_t> shape);
  /// Uploads an input set once into device memory kept by the session; returns its index for run_staged().
  size_t stage_inputs(const std::map<std::string, Tensor>& inputs);
  /// Runs the plan on a staged input set (a device-to-device copy into the plan, then the steps; no copy back):
  /// compute-only benchmarks with the inputs already on the device. Fetch results afterwards with run() if needed.
  RunTiming run_staged(size_t set);
  /// Frees every staged input set.
  void clear_staged();
  /// Name of the device that runs this session (GPU name or CPU model).
  std::string device_name() const;

  struct Impl;
  explicit Session(std::shared_ptr<Impl> impl) : m_impl(std::move(impl)) {}
  const std::shared_ptr<Impl>& impl() const { return m_impl; }

 private:
  std::shared_ptr<Impl> m_impl;
};

}  // namespace ie
