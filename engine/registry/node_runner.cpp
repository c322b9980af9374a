#include "engine/registry/node_runner.h"

#include <cstring>

#include "engine/backend/constant_store.h"

namespace ie {

InferContext infer_node(const Node& node, const std::vector<TensorInfo>& infos,
                        const std::vector<const Tensor*>& constants, int64_t opset) {
  const OpDef* def = OpRegistry::get().find(node.domain, node.op_type);
  if (!def) fail_input(node.label(), ": op '", node.op_type, "' is not supported by this engine");
  std::vector<const TensorInfo*> ptrs;
  for (size_t i = 0; i < infos.size(); ++i)
    ptrs.push_back(infos[i].dtype == DType::Undefined ? nullptr : &infos[i]);
  InferContext ctx(node, ptrs, constants, opset);
  def->infer(ctx);
  for (size_t i = 0; i < ctx.outputs.size(); ++i)
    if (!node.outputs[i].empty() && ctx.outputs[i].dtype == DType::Undefined)
      fail_input(node.label(), ": shape inference gave no type for output '", node.outputs[i], "'");
  return ctx;
}

std::vector<Tensor> run_node_cpu(const Node& node, const std::vector<Tensor>& inputs, int64_t opset) {
  std::vector<TensorInfo> infos;
  std::vector<const Tensor*> constants;
  for (auto& t : inputs) {
    infos.push_back(t.empty() ? TensorInfo{} : TensorInfo{t.dtype(), t.shape()});
    constants.push_back(t.empty() ? nullptr : &t);
  }
  InferContext ictx = infer_node(node, infos, constants, opset);
  std::vector<Tensor> outputs(ictx.outputs.size());
  bool all_known = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!ictx.output_constants[i].empty()) outputs[i] = ictx.output_constants[i];
    else all_known = false;
  }
  if (all_known) return outputs;

  const KernelFactory* factory = OpRegistry::get().kernel(node.domain, node.op_type, kernel_set::kCpu);
  if (!factory) fail_input(node.label(), ": no CPU kernel for this op");
  ConstantStore store;  // a kernel's prepared weights live as long as this one run on the host
  std::string declined;
  KernelInit init{node, infos, constants, ictx.outputs, opset};
  init.store = &store;
  init.declined = &declined;
  auto kernel = (*factory)(init);
  if (!kernel)
    fail_input(node.label(), ": the CPU kernel does not support this configuration",
               declined.empty() ? "" : ": " + declined);
  KernelContext kctx;
  for (auto& t : inputs)
    kctx.inputs.push_back(t.empty() ? TensorRef{} : TensorRef{const_cast<void*>(t.data()), t.dtype(), t.shape()});
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (ictx.outputs[i].dtype == DType::Undefined) {
      kctx.outputs.push_back(TensorRef{});
      continue;
    }
    outputs[i] = Tensor(ictx.outputs[i].dtype, ictx.outputs[i].shape);
    kctx.outputs.push_back(TensorRef{outputs[i].data(), outputs[i].dtype(), outputs[i].shape()});
  }
  std::vector<uint8_t> workspace(kernel->workspace_bytes());
  kctx.workspace = workspace.data();
  kctx.workspace_bytes = workspace.size();
  kernel->run(kctx);
  return outputs;
}

Node make_node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
               Attributes attrs, const std::string& domain) {
  Node n;
  n.name = op + "_test";
  n.op_type = op;
  n.domain = domain;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attrs = std::move(attrs);
  return n;
}

}  // namespace ie
