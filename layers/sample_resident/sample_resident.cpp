// ie.SampleResident (sample_resident_chain.h): the op's record, the chain of parts as a kernel spec, and the
// planner rule that finds the chains.
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "engine/core/dtype_dispatch.h"
#include "engine/core/float_convert.h"
#include "engine/planner/fusion.h"
#include "engine/registry/node_runner.h"
#include "layers/attention/attention_setup.h"
#include "layers/layer_norm/layer_norm_setup.h"
#include "layers/linear/linear_setup.h"
#include "layers/sample_resident/sample_resident_chain.h"

namespace ie {
namespace {

enum class Part { None, View, Linear, LayerNorm, Attention, Softmax };

Part part_kind(const Node& n) {
  if (n.domain.empty() && n.op_type == "Cast") return Part::View;
  if (n.domain == "ie" && n.op_type == "Linear") return Part::Linear;
  if ((n.domain.empty() && n.op_type == "LayerNormalization") || (n.domain == "ie" && n.op_type == "LayerNorm"))
    return Part::LayerNorm;
  if (n.domain.empty() && n.op_type == "Softmax") return Part::Softmax;
  if (n.domain == "ie" && n.op_type == "Attention")
    return n.attrs.get_int("projection", 0) != 0 ? Part::Attention : Part::None;
  const OpDef* def = OpRegistry::get().find(n.domain, n.op_type);
  return def && def->view_of_input == 0 ? Part::View : Part::None;
}

int act_code(Activation a) {  // dev::Act's numbering (activation_device.cuh)
  switch (a) {
    case Activation::Relu:
      return 1;
    case Activation::Gelu:
      return 2;
    case Activation::GeluTanh:
      return 3;
    case Activation::Tanh:
      return 4;
    case Activation::Sigmoid:
      return 5;
    default:
      return 0;
  }
}

sr::Elem elem_of(DType t) {
  return t == DType::Float16 ? sr::Elem::F16 : t == DType::BFloat16 ? sr::Elem::BF16 : sr::Elem::F32;
}

std::vector<float> floats_of(const Tensor& t) {
  const Tensor f = convert_floats(t, DType::Float32);
  return std::vector<float>(f.data_as<float>(), f.data_as<float>() + f.numel());
}

// W^T [n][k] (row-major floats) in the compute type's bits.
std::vector<uint16_t> weight_bits(const std::vector<float>& wt, int64_t n, int64_t k, DType compute) {
  Tensor f(DType::Float32, {n, k});
  std::memcpy(f.data(), wt.data(), wt.size() * sizeof(float));
  const Tensor c = convert_floats(f, compute);
  std::vector<uint16_t> bits(static_cast<size_t>(n * k));
  std::memcpy(bits.data(), c.data(), bits.size() * sizeof(uint16_t));
  return bits;
}

// Builds the chain spec part by part; each add() checks that the part fits the kernel.
class ChainBuilder {
 public:
  using InfoFn = std::function<const TensorInfo*(const std::string&)>;
  using ConstantFn = std::function<const Tensor*(const std::string&)>;
  ChainBuilder(InfoFn info, ConstantFn constant, bool values) : m_info(info), m_constant(constant), m_values(values) {}

  bool add(const Node& part, std::string* why) {
    const Part kind = part_kind(part);
    if (kind == Part::None) return fail(why, part.label(), ": no sample-resident form");
    for (size_t i = 1; i < part.outputs.size(); ++i)
      if (!part.outputs[i].empty()) return fail(why, part.label(), ": optional outputs are not produced");
    const std::string in0 = part.inputs.empty() ? "" : part.inputs[0];
    if (m_batch < 0 && m_info(in0) && !m_info(in0)->shape.empty()) m_batch = m_info(in0)->shape[0];
    const TensorInfo* x = activation(in0);
    const TensorInfo* y = m_info(part.outputs[0]);
    if (!x || !y) return fail(why, part.label(), ": its input must be an activation of known shape");
    int rows = 0, cols = 0;
    if (!geometry(*x, &rows, &cols) || !geometry(*y, &rows, &cols))
      return fail(why, part.label(), ": tensors must be float, [batch = ", m_batch, ", ...] of rank >= 2");
    if (kind == Part::View) {
      const int in = id(part.inputs[0]);
      return add_tensor(part.outputs[0], *y, in) >= 0;
    }
    if (!is_compute(x->dtype) || y->dtype != x->dtype)
      return fail(why, part.label(), ": computes in ", dtype_name(x->dtype), " (the kernels take fp16, bf16, float32)");
    if (m_compute == DType::Undefined) m_compute = x->dtype;
    if (x->dtype != m_compute) return fail(why, part.label(), ": a second compute type in one chain");
    sr::ChainOp op;
    op.in = id(part.inputs[0]);
    if (kind == Part::Linear) {
      if (!constants(part, 1, 3, why)) return false;
      const bool bias = has(part, 2), residual = has(part, 3);
      const Shape bias_shape = bias ? m_constant(part.inputs[2])->shape() : Shape{};
      const TensorInfo* r = residual ? activation(part.inputs[3]) : nullptr;
      if (residual && (!r || r->dtype != x->dtype))
        return fail(why, part.label(), ": residual must be a chain activation");
      const LinearSetup s = resolve_linear(part, x->shape, m_constant(part.inputs[1])->shape(),
                                           bias ? &bias_shape : nullptr, r ? &r->shape : nullptr);
      if (s.k % 16) return fail(why, part.label(), ": K = ", s.k, " (multiples of 16 run)");
      op.op = sr::OpCode::Linear;
      op.k = static_cast<int>(s.k), op.n = static_cast<int>(s.n);
      op.act = act_code(s.activation);
      op.residual = residual ? id(part.inputs[3]) : -1;
      if (m_values) {
        const std::vector<float> w = floats_of(*m_constant(part.inputs[1]));
        std::vector<float> wt(w.size());
        for (int64_t n = 0; n < s.n; ++n)
          for (int64_t k = 0; k < s.k; ++k) wt[n * s.k + k] = s.trans_w ? w[n * s.k + k] : w[k * s.n + n];
        set_weights(op, std::move(wt), s.n, s.k);
        if (bias) op.bias = floats_of(*m_constant(part.inputs[2]));
      }
    } else if (kind == Part::LayerNorm) {
      if (!constants(part, 1, 3, why)) return false;
      int64_t axis = 0;
      const LayerNormSetup s = resolve_layer_norm(part, x->shape, &axis);
      if (axis != static_cast<int64_t>(x->shape.size()) - 1)
        return fail(why, part.label(), ": normalizes over more than the last axis");
      if (cols % 64 || cols > sr::kMaxLayerNormCols)
        return fail(why, part.label(), ": rows of ", cols, " (multiples of 64 up to ", sr::kMaxLayerNormCols, " run)");
      if (m_constant(part.inputs[1])->numel() != cols || (has(part, 2) && m_constant(part.inputs[2])->numel() != cols))
        return fail(why, part.label(), ": scale and bias must hold ", cols, " values");
      op.op = sr::OpCode::LayerNorm;
      op.eps = s.epsilon;
      op.act = act_code(s.activation);
      if (m_values) {
        op.gamma = floats_of(*m_constant(part.inputs[1]));
        if (has(part, 2)) op.beta = floats_of(*m_constant(part.inputs[2]));
      }
    } else if (kind == Part::Softmax) {
      // Over the last axis under either opset's rule: an explicit last axis, or the default on a matrix (opset 13's
      // -1 and the older 1 with 2-D coercion agree there).
      const int64_t rank = static_cast<int64_t>(x->shape.size());
      const bool last = part.attrs.has("axis")
                            ? normalize_axis(part.attrs.get_int("axis", -1), rank, part.label()) == rank - 1
                            : rank == 2;
      if (!last) return fail(why, part.label(), ": softmax over another axis than the last");
      op.op = sr::OpCode::Softmax;
    } else {
      if (!constants(part, 1, 5, why)) return false;
      std::vector<TensorInfo> infos = {*x};
      for (size_t i = 1; i < part.inputs.size() && !part.inputs[i].empty(); ++i)
        infos.push_back(TensorInfo{m_constant(part.inputs[i])->dtype(), m_constant(part.inputs[i])->shape()});
      const AttentionSetup s = resolve_attention(part, infos);
      if (s.seq > sr::kMaxAttentionSeq || s.dim % 16 || s.k % 16)
        return fail(why, part.label(), ": sequence ", s.seq, " (up to ", sr::kMaxAttentionSeq, "), head dim ", s.dim,
                    " and width ", s.k, " (multiples of 16) run");
      op.op = sr::OpCode::Attention;
      op.k = static_cast<int>(s.k), op.n = static_cast<int>(s.embed);
      op.heads = static_cast<int>(s.heads), op.head_dim = static_cast<int>(s.dim);
      op.scale = s.scale;
      if (m_values) {
        const std::vector<float> w = floats_of(*m_constant(part.inputs[1]));  // [k, 3 embed]
        const int64_t n3 = 3 * s.embed;
        std::vector<float> wt(w.size());
        for (int64_t n = 0; n < n3; ++n)
          for (int64_t k = 0; k < s.k; ++k) wt[n * s.k + k] = w[k * n3 + n];
        set_weights(op, std::move(wt), n3, s.k);
        op.bias = floats_of(*m_constant(part.inputs[2]));
        if (s.rope == RopeMode::Interleaved) {
          op.cos = floats_of(*m_constant(part.inputs[3]));
          op.sin = floats_of(*m_constant(part.inputs[4]));
        }
      }
    }
    op.out = add_tensor(part.outputs[0], *y, -1);
    m_spec.ops.push_back(std::move(op));
    m_spec.compute = elem_of(m_compute);
    return true;
  }

  /// Marks `name` as the chain's output `index`; false when the chain does not produce it.
  bool mark_output(const std::string& name, int index) {
    auto it = m_id.find(name);
    if (it == m_id.end() || m_spec.tensors[it->second].input >= 0) return false;
    m_spec.tensors[it->second].output = index;
    m_spec.tensors[it->second].global = elem_of(m_info(name)->dtype);
    return true;
  }
  bool produces(const std::string& name) const { return m_id.count(name) && !m_inputs.count(name); }
  int compute_ops() const { return static_cast<int>(m_spec.ops.size()); }
  const std::vector<std::string>& external_inputs() const { return m_input_order; }
  sr::ChainSpec& spec() { return m_spec; }

 private:
  template <class... Args>
  static bool fail(std::string* why, const Args&... args) {
    if (why) *why = concat(args...);
    return false;
  }
  static bool is_compute(DType t) { return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32; }
  // W^T [n][k]: in the compute type's bits, or as floats in float32 (ChainOp::w32).
  void set_weights(sr::ChainOp& op, std::vector<float> wt, int64_t n, int64_t k) const {
    if (m_compute == DType::Float32)
      op.w32 = std::move(wt);
    else
      op.w = weight_bits(wt, n, k, m_compute);
  }
  static bool has(const Node& n, size_t i) { return i < n.inputs.size() && !n.inputs[i].empty(); }

  bool constants(const Node& part, size_t from, size_t to, std::string* why) const {
    for (size_t i = from; i < to && i < part.inputs.size(); ++i)
      if (!part.inputs[i].empty() && !m_constant(part.inputs[i]))
        return fail(why, part.label(), ": input ", i, " must be constant");
    return true;
  }
  // A non-constant tensor the chain reads: produced here, or one of its inputs (registered on first sight).
  const TensorInfo* activation(const std::string& name) {
    if (name.empty() || m_constant(name)) return nullptr;
    const TensorInfo* info = m_info(name);
    if (info && !m_id.count(name)) {
      m_inputs.insert(name);
      m_input_order.push_back(name);
      const int t = add_tensor(name, *info, -1);
      m_spec.tensors[t].input = static_cast<int>(m_input_order.size()) - 1;
      m_spec.tensors[t].global = elem_of(info->dtype);
    }
    return info;
  }
  bool geometry(const TensorInfo& t, int* rows, int* cols) const {
    if (!is_float(t.dtype) || t.shape.size() < 2 || t.shape[0] != m_batch) return false;
    const int64_t per = numel_range(t.shape, 1, t.shape.size());
    if (per <= 0 || per > (1 << 24)) return false;
    *cols = static_cast<int>(t.shape.back());
    *rows = static_cast<int>(per / t.shape.back());
    return true;
  }
  int id(const std::string& name) const { return m_id.at(name); }
  int add_tensor(const std::string& name, const TensorInfo& info, int alias) {
    auto it = m_id.find(name);
    if (it != m_id.end()) return it->second;
    sr::ChainTensor t;
    t.name = name;
    int rows = 0, cols = 0;
    geometry(info, &rows, &cols);
    t.rows = rows, t.cols = cols, t.alias_of = alias;
    m_spec.tensors.push_back(t);
    return m_id[name] = static_cast<int>(m_spec.tensors.size()) - 1;
  }

  InfoFn m_info;
  ConstantFn m_constant;
  bool m_values;
  int64_t m_batch = -1;
  DType m_compute = DType::Undefined;
  sr::ChainSpec m_spec;
  std::map<std::string, int> m_id;
  std::set<std::string> m_inputs;
  std::vector<std::string> m_input_order;
};

// Types and shapes of every tensor of the node's parts, from its inputs.
std::map<std::string, TensorInfo> part_infos(const Node& node, const std::vector<TensorInfo>& inputs,
                                             const std::vector<const Tensor*>& constants, int64_t opset,
                                             std::map<std::string, const Tensor*>* values) {
  std::map<std::string, TensorInfo> infos;
  for (size_t i = 0; i < node.inputs.size() && i < inputs.size(); ++i) {
    infos[node.inputs[i]] = inputs[i];
    if (i < constants.size() && constants[i]) (*values)[node.inputs[i]] = constants[i];
  }
  for (const Node& part : node.replaced) {
    std::vector<TensorInfo> in;
    std::vector<const Tensor*> cs;
    for (auto& name : part.inputs) {
      in.push_back(name.empty() ? TensorInfo{} : infos.at(name));
      auto c = values->find(name);
      cs.push_back(c == values->end() ? nullptr : c->second);
    }
    InferContext ctx = infer_node(part, in, cs, opset);
    for (size_t i = 0; i < part.outputs.size(); ++i)
      if (!part.outputs[i].empty()) infos[part.outputs[i]] = ctx.outputs[i];
  }
  return infos;
}

void infer_sample_resident(InferContext& ctx) {
  std::vector<TensorInfo> inputs;
  std::vector<const Tensor*> constants;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    inputs.push_back(ctx.has_input(i) ? ctx.input(i) : TensorInfo{});
    constants.push_back(ctx.constant(i));
  }
  std::map<std::string, const Tensor*> values;
  const auto infos = part_infos(ctx.node(), inputs, constants, ctx.opset(), &values);
  for (size_t i = 0; i < ctx.node().outputs.size(); ++i) {
    const TensorInfo& t = infos.at(ctx.node().outputs[i]);
    ctx.set_output(i, t.dtype, t.shape);
  }
}

OpCost sample_resident_cost(const Node& node, const std::vector<TensorInfo>& in, const std::vector<TensorInfo>& out) {
  sr::ChainSpec spec;
  std::string why;
  OpCost cost{0, io_bytes(in, out)};
  std::vector<const Tensor*> none(in.size(), nullptr);
  try {
    if (!in.empty() && !in[0].shape.empty() && sample_resident_spec(node, in, none, 20, false, &spec, &why))
      cost.flops = sr::chain_flops_per_sample(spec) * static_cast<double>(in[0].shape[0]);
  } catch (const std::exception&) {
    // no FLOP figure for a chain whose parts do not infer from these types
  }
  return cost;
}

// The rule: from the first node of a run of parts, the longest run that fits the kernel; worth one kernel when
// it holds at least two products (Linear or Attention).
bool match_chain(FusionContext& ctx, size_t index) {
  Graph& g = ctx.graph();
  if (part_kind(g.nodes[index]) == Part::None) return false;
  ChainBuilder b([&](const std::string& n) { return ctx.info(n); },
                 [&](const std::string& n) { return ctx.constant(n); }, false);
  std::vector<size_t> run;
  int products = 0;
  for (size_t j = index; j < g.nodes.size() && !ctx.is_taken(j); ++j) {
    ChainBuilder trial = b;  // add() may register the node's inputs before it refuses the node
    if (!trial.add(g.nodes[j], nullptr)) break;
    b = std::move(trial);
    run.push_back(j);
    const Part k = part_kind(g.nodes[j]);
    products += k == Part::Linear || k == Part::Attention;
  }
  // Trailing views whose output nobody outside reads stay with the chain; a run without products is not one.
  if (products < 2) return false;
  // In float32 only the transformer's form has a kernel (split_sequence.h): products alone stay per step.
  if (b.spec().compute == sr::Elem::F32 && !sr::has_norm_or_attention(b.spec())) return false;
  Node fused;
  fused.name = g.nodes[run.front()].name + "/sample_resident";
  fused.domain = "ie";
  fused.op_type = "SampleResident";
  fused.inputs = b.external_inputs();
  std::set<std::string> seen(fused.inputs.begin(), fused.inputs.end());
  const std::set<size_t> in_run(run.begin(), run.end());
  for (size_t j : run)
    for (auto& name : g.nodes[j].inputs)
      if (!name.empty() && ctx.constant(name) && seen.insert(name).second) fused.inputs.push_back(name);
  for (size_t j : run)
    for (auto& name : g.nodes[j].outputs) {
      if (name.empty()) continue;
      bool outside = g.is_graph_output(name);
      for (size_t c : ctx.consumers(name)) outside |= !in_run.count(c);
      if (outside) fused.outputs.push_back(name);
    }
  if (fused.outputs.empty() || fused.inputs.empty()) return false;
  return ctx.replace(run, fused, "sample_resident");
}

}  // namespace

bool sample_resident_spec(const Node& node, const std::vector<TensorInfo>& inputs,
                          const std::vector<const Tensor*>& constants, int64_t opset, bool values, sr::ChainSpec* spec,
                          std::string* why) {
  std::map<std::string, const Tensor*> known;
  const auto infos = part_infos(node, inputs, constants, opset, &known);
  ChainBuilder b(
      [&](const std::string& n) {
        auto it = infos.find(n);
        return it == infos.end() ? nullptr : &it->second;
      },
      [&](const std::string& n) {
        auto it = known.find(n);
        return it == known.end() ? nullptr : it->second;
      },
      values);
  for (const Node& part : node.replaced)
    if (!b.add(part, why)) return false;
  for (size_t i = 0; i < node.outputs.size(); ++i)
    if (!b.mark_output(node.outputs[i], static_cast<int>(i))) {
      if (why) *why = concat("output ", node.outputs[i], " is not made by the chain");
      return false;
    }
  *spec = std::move(b.spec());
  return true;
}

IE_REGISTER_OPS(sample_resident) {
  OpRegistry::get().add(
      OpDef("ie", "SampleResident", infer_sample_resident).with_cost(sample_resident_cost).not_foldable());
}

IE_REGISTER_FUSION(sample_resident) {
  FusionRule rule{"sample_resident", 900, match_chain};
  rule.after_precision = true;  // the chain takes the Casts at its ends and the weights in their storage type
  return rule;
}

}  // namespace ie
