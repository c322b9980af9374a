#include "engine/registry/op_def.h"

#include "engine/core/checked_math.h"

namespace ie {

namespace {
std::string key_of(const std::string& domain, const std::string& op) {
  std::string d = domain == "ai.onnx" ? "" : domain;
  return d + ":" + op;
}
}  // namespace

InferContext::InferContext(const Node& node, std::vector<const TensorInfo*> inputs,
                           std::vector<const Tensor*> constants, int64_t opset)
    : m_node(node), m_inputs(std::move(inputs)), m_constants(std::move(constants)), m_opset(opset) {
  outputs.resize(node.outputs.size());
  output_constants.resize(node.outputs.size());
}

const TensorInfo& InferContext::input(size_t i) const {
  if (!has_input(i)) fail("input ", i, " is required but absent");
  return *m_inputs[i];
}

const Tensor& InferContext::require_constant(size_t i, const char* what) const {
  if (!has_input(i)) fail(what, " (input ", i, ") is required but absent");  // a model may leave it out
  const Tensor* t = constant(i);
  if (!t)
    throw NeedsValue(m_node.inputs.at(i), concat(m_node.label(), ": ", what, " (input ", i, ", '", m_node.inputs.at(i),
                                                  "') must be known at plan time, but it is computed at run time"));
  return *t;
}

std::vector<int64_t> InferContext::constant_ints(size_t i, const char* what) const {
  const Tensor* t = &require_constant(i, what);
  std::vector<int64_t> v(t->numel());
  if (t->dtype() == DType::Int64) {
    for (int64_t k = 0; k < t->numel(); ++k) v[k] = t->data_as<int64_t>()[k];
  } else if (t->dtype() == DType::Int32) {
    for (int64_t k = 0; k < t->numel(); ++k) v[k] = t->data_as<int32_t>()[k];
  } else {
    fail(what, " must be int64 or int32, got ", dtype_name(t->dtype()));
  }
  return v;
}

void InferContext::set_output(size_t i, DType dtype, Shape shape) {
  if (i >= outputs.size()) return;  // optional output not requested
  // Element and byte counts must fit in 64 bits before anything plans memory for them.
  checked_bytes(shape, dtype, m_node.label() + " output '" + m_node.outputs[i] + "'");
  outputs[i] = TensorInfo{dtype, std::move(shape)};
}

void InferContext::set_output_constant(size_t i, Tensor value) {
  if (i >= outputs.size()) return;
  outputs[i] = TensorInfo{value.dtype(), value.shape()};
  output_constants[i] = std::move(value);
}

OpRegistry& OpRegistry::get() {
  static OpRegistry registry;
  return registry;
}

void OpRegistry::add(OpDef def) {
  std::string key = key_of(def.domain, def.name);
  if (m_ops.count(key)) throw Error(ErrorKind::Usage, "op '" + key + "' is registered twice");
  m_ops.emplace(key, std::move(def));
}

void OpRegistry::add_kernel(const std::string& domain, const std::string& op, const std::string& kernel_set,
                            KernelFactory factory, SupportsFn supports) {
  auto& slot = m_kernels[key_of(domain, op)];
  if (slot.count(kernel_set))
    throw Error(ErrorKind::Usage,
                "kernel for op '" + key_of(domain, op) + "' in kernel set " + kernel_set + " is registered twice");
  slot.emplace(kernel_set, std::move(factory));
  if (supports) m_supports[key_of(domain, op)][kernel_set] = std::move(supports);
}

bool OpRegistry::supports(const Node& node, const std::string& kernel_set) const {
  if (!kernel(node.domain, node.op_type, kernel_set)) return false;
  auto it = m_supports.find(key_of(node.domain, node.op_type));
  if (it == m_supports.end()) return true;
  auto s = it->second.find(kernel_set);
  return s == it->second.end() || s->second(node);
}

bool OpRegistry::supports_any(const Node& node, const std::vector<std::string>& kernel_sets) const {
  for (auto& set : kernel_sets)
    if (supports(node, set)) return true;
  return false;
}

const OpDef* OpRegistry::find(const std::string& domain, const std::string& op) const {
  auto it = m_ops.find(key_of(domain, op));
  return it == m_ops.end() ? nullptr : &it->second;
}

const KernelFactory* OpRegistry::kernel(const std::string& domain, const std::string& op,
                                        const std::string& kernel_set) const {
  auto it = m_kernels.find(key_of(domain, op));
  if (it == m_kernels.end()) return nullptr;
  auto k = it->second.find(kernel_set);
  return k == it->second.end() ? nullptr : &k->second;
}

void OpRegistry::set_cost(const std::string& domain, const std::string& op, CostFn cost) {
  auto it = m_ops.find(key_of(domain, op));
  if (it == m_ops.end()) throw Error(ErrorKind::Usage, "cost for unknown op '" + key_of(domain, op) + "'");
  it->second.cost = std::move(cost);
}

OpCost OpRegistry::cost(const Node& node, const std::vector<TensorInfo>& inputs,
                        const std::vector<TensorInfo>& outputs) const {
  const OpDef* def = find(node.domain, node.op_type);
  if (def && def->cost) return def->cost(node, inputs, outputs);
  if (def && def->view_of_input >= 0) return OpCost{};  // a view (Reshape, Squeeze ...) moves no data
  return OpCost{0, io_bytes(inputs, outputs)};
}

double io_bytes(const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs) {
  double bytes = 0;
  for (const auto* list : {&inputs, &outputs})
    for (auto& t : *list)
      if (t.dtype != DType::Undefined)
        bytes += static_cast<double>(numel_range(t.shape, 0, t.shape.size())) * dtype_size(t.dtype);
  return bytes;
}

double output_elements(const std::vector<TensorInfo>& outputs) {
  if (outputs.empty() || outputs[0].dtype == DType::Undefined) return 0;
  return static_cast<double>(numel_range(outputs[0].shape, 0, outputs[0].shape.size()));
}

CostFn per_element_cost(double flops_per_element) {
  return [flops_per_element](const Node&, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
    return OpCost{flops_per_element * output_elements(out), io_bytes(in, out)};
  };
}

std::vector<std::string> OpRegistry::op_names() const {
  std::vector<std::string> names;
  for (auto& [k, v] : m_ops) names.push_back(v.domain.empty() ? v.name : v.domain + "." + v.name);
  return names;
}

}  // namespace ie
