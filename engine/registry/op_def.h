// The op registry: one OpDef per op (shape and dtype inference, folding rules) plus kernel factories per backend.
// Each layers/<op>/ file registers its own records with IE_REGISTER_OPS, so adding an op touches one place.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/backend/kernel_sets.h"
#include "engine/core/precision.h"
#include "engine/core/shape.h"
#include "engine/ir/graph.h"

namespace ie {

struct TensorInfo {
  DType dtype = DType::Undefined;
  Shape shape;
};

/// What shape inference of one node sees: input types and shapes, constant input values, the opset.
class InferContext {
 public:
  InferContext(const Node& node, std::vector<const TensorInfo*> inputs, std::vector<const Tensor*> constants,
               int64_t opset);

  const Node& node() const { return m_node; }
  const Attributes& attrs() const { return m_node.attrs; }
  int64_t opset() const { return m_opset; }
  size_t num_inputs() const { return m_inputs.size(); }
  /// True when input i is given (optional inputs may be absent or named "").
  bool has_input(size_t i) const { return i < m_inputs.size() && m_inputs[i] != nullptr; }
  /// Type and shape of input i; fails naming the node when it is absent.
  const TensorInfo& input(size_t i) const;
  /// The value of input i when it is known at plan time (initializer or folded), else nullptr.
  const Tensor* constant(size_t i) const { return i < m_constants.size() ? m_constants[i] : nullptr; }
  /// The value of input i; throws NeedsValue naming the tensor when it is not known at plan time.
  const Tensor& require_constant(size_t i, const char* what) const;
  /// Constant input i as int64 values (int32/int64 accepted); fails naming the node when not constant.
  std::vector<int64_t> constant_ints(size_t i, const char* what) const;

  void set_output(size_t i, DType dtype, Shape shape);
  /// Output i is known now (e.g. Shape of a tensor with a known shape); the planner folds it.
  void set_output_constant(size_t i, Tensor value);

  template <class... Args>
  [[noreturn]] void fail(const Args&... args) const {
    fail_input(m_node.label(), ": ", args...);
  }
  template <class... Args>
  void expect(bool cond, const Args&... args) const {
    if (!cond) fail(args...);
  }

  std::vector<TensorInfo> outputs;
  std::vector<Tensor> output_constants;  // empty Tensor where not known

 private:
  const Node& m_node;
  std::vector<const TensorInfo*> m_inputs;
  std::vector<const Tensor*> m_constants;
  int64_t m_opset;
};

/// A tensor as a kernel sees it: a pointer into the backend's memory plus its type and shape.
struct TensorRef {
  void* data = nullptr;
  DType dtype = DType::Undefined;
  Shape shape;

  bool present() const { return dtype != DType::Undefined; }
  int64_t numel() const { return numel_range(shape, 0, shape.size()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
  template <class T> T* as() const { return static_cast<T*>(data); }
};

struct KernelContext {
  std::vector<TensorRef> inputs;
  std::vector<TensorRef> outputs;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  void* stream = nullptr;  // cudaStream_t on CUDA backends
};

class ConstantStore;
class Backend;

/// Everything a kernel factory may use at plan time: the node, shapes, constant inputs (weights to pre-pack).
/// A factory returns a kernel, or declines with `return init.decline("why");` so that the backend's next kernel
/// set gets the node (inspect shows the reason).
struct KernelInit {
  const Node& node;
  std::vector<TensorInfo> inputs;         // dtype Undefined for an absent optional input
  std::vector<const Tensor*> constants;   // value of each constant input, else nullptr
  std::vector<TensorInfo> outputs;
  int64_t opset = 0;
  Precision precision = Precision::fp32;
  void* backend_state = nullptr;          // backend-specific handles (cuDNN/cuBLAS) for its kernels
  Backend* backend = nullptr;             // the backend that will run the kernel (null when folding on the host)
  ConstantStore* store = nullptr;         // engine-wide prepared constants (null when folding on the host)
  std::string* declined = nullptr;        // where decline() leaves its reason (set by the planner)

  /// True when optional input i is given (present in the node and not named "").
  bool has_input(size_t i) const { return i < inputs.size() && inputs[i].dtype != DType::Undefined; }

  template <class... Args>
  [[noreturn]] void fail(const Args&... args) const {
    fail_input(node.label(), ": ", args...);
  }
  /// Declines this node at plan time; the planner tries the backend's next kernel set. Returns nullptr.
  template <class... Args>
  std::nullptr_t decline(const Args&... args) const {
    if (declined) *declined = concat(args...);
    return nullptr;
  }
  /// The prepare hook: weights in the kernel's own layout (packed, transposed, padded, converted), made by `make`
  /// once per engine and `key` and shared by every session's kernel. Returns a pointer in the backend's memory
  /// (device memory on GPU backends). The key is scoped to this node; include the shape where the layout depends
  /// on it.  `const float* w = static_cast<const float*>(init.prepared("w_packed", [&] { return pack(w); }));`
  const void* prepared(const std::string& key, const std::function<Tensor()>& make) const;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  /// Scratch bytes run() needs; the planner provides them from the arena.
  virtual size_t workspace_bytes() const { return 0; }
  virtual void run(KernelContext& ctx) = 0;
};

/// Builds a kernel for one node, or returns nullptr when this backend cannot run that node as configured.
using KernelFactory = std::function<std::unique_ptr<Kernel>(const KernelInit&)>;
using InferFn = std::function<void(InferContext&)>;
/// Cheap plan-time check whether a backend's kernel can run a node as configured (used before fusing, so an
/// unsupported fused form leaves the nodes unfused). Absent: every node of the op is accepted.
using SupportsFn = std::function<bool(const Node&)>;

/// Work of one run of a node, for the profiler's achieved GB/s and TFLOP/s.
struct OpCost {
  double flops = 0;  // arithmetic operations (a multiply-add counts 2)
  double bytes = 0;  // fewest bytes moved: every input read once, every output written once
};
/// Cost of a node from its input and output types and shapes (absent optional tensors have dtype Undefined).
using CostFn = std::function<OpCost(const Node&, const std::vector<TensorInfo>& inputs,
                                    const std::vector<TensorInfo>& outputs)>;

/// Bytes of every present input (constants included) and output: the default cost's `bytes`.
double io_bytes(const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs);
/// Elements of output 0 (0 when absent): the unit of elementwise costs.
double output_elements(const std::vector<TensorInfo>& outputs);
/// `flops_per_element` per element of output 0, bytes = io_bytes: the cost of elementwise-like ops.
CostFn per_element_cost(double flops_per_element);

/// One op's record. The three things every op has come first; the rest are set by name:
///   OpRegistry::get().add(OpDef("", "Conv", infer_conv).with_cost(conv_cost));
///   OpRegistry::get().add(OpDef("", "Reshape", infer_reshape).view_of(0));
struct OpDef {
  std::string domain;       // "" = ONNX default domain
  std::string name;
  InferFn infer;
  bool foldable = true;     // may run at plan time when every input is constant
  int view_of_input = -1;   // output 0 may share the buffer of this input (Reshape, Squeeze ...)
  CostFn cost = nullptr;    // absent: flops 0, bytes = io_bytes
  /// Float inputs whose type the op fixes apart from its data type (Resize's roi and scales): the precision pass
  /// leaves them in their own type when it lowers activations and weights to fp16/bf16.
  std::vector<int> fixed_type_inputs;

  OpDef() = default;
  OpDef(std::string op_domain, std::string op_name, InferFn infer_fn)
      : domain(std::move(op_domain)), name(std::move(op_name)), infer(std::move(infer_fn)) {}
  OpDef& with_cost(CostFn fn) { cost = std::move(fn); return *this; }
  OpDef& view_of(int input) { view_of_input = input; return *this; }
  OpDef& not_foldable() { foldable = false; return *this; }
  OpDef& with_fixed_type_inputs(std::vector<int> inputs) { fixed_type_inputs = std::move(inputs); return *this; }
};

class OpRegistry {
 public:
  static OpRegistry& get();
  /// Registers an op; throws Error on a duplicate name.
  void add(OpDef def);
  /// Registers op's kernel in a kernel set (engine/backend/kernel_sets.h); throws Error on a duplicate.
  void add_kernel(const std::string& domain, const std::string& op, const std::string& kernel_set,
                  KernelFactory factory, SupportsFn supports = nullptr);
  /// Whether `backend` has a kernel for the node's op that accepts this node.
  bool supports(const Node& node, const std::string& kernel_set) const;
  /// Whether any of `kernel_sets` has a kernel that accepts this node (a backend's whole list).
  bool supports_any(const Node& node, const std::vector<std::string>& kernel_sets) const;
  const OpDef* find(const std::string& domain, const std::string& op) const;
  /// Sets the cost function of a registered op (next to its add()); throws Error when the op is unknown.
  void set_cost(const std::string& domain, const std::string& op, CostFn cost);
  /// Cost of one node: its OpDef's cost function, else {0 flops, io_bytes} ({0, 0} for a view op).
  OpCost cost(const Node& node, const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs) const;
  const KernelFactory* kernel(const std::string& domain, const std::string& op, const std::string& kernel_set) const;
  std::vector<std::string> op_names() const;

 private:
  std::map<std::string, OpDef> m_ops;
  std::map<std::string, std::map<std::string, KernelFactory>> m_kernels;
  std::map<std::string, std::map<std::string, SupportsFn>> m_supports;
};

/// Wraps a callable void(KernelContext&) as a Kernel.
template <class Fn>
std::unique_ptr<Kernel> make_kernel(Fn fn, size_t workspace = 0) {
  struct Lambda : Kernel {
    Fn fn;
    size_t ws;
    Lambda(Fn f, size_t w) : fn(std::move(f)), ws(w) {}
    size_t workspace_bytes() const override { return ws; }
    void run(KernelContext& ctx) override { fn(ctx); }
  };
  return std::make_unique<Lambda>(std::move(fn), workspace);
}

}  // namespace ie

#define IE_CONCAT_INNER(a, b) a##b
#define IE_CONCAT(a, b) IE_CONCAT_INNER(a, b)
/// IE_REGISTER_OPS(tag) { OpRegistry::get().add(...); } -- runs at start-up.
#define IE_REGISTER_OPS(tag)                                                              \
  static void IE_CONCAT(ie_register_, tag)();                                             \
  [[maybe_unused]] static const bool IE_CONCAT(ie_registered_, tag) = (IE_CONCAT(ie_register_, tag)(), true); \
  static void IE_CONCAT(ie_register_, tag)()
