// The pattern ie.Attention replaces: multi-head attention written out node by node, as both ONNX exporters
// write a transformer block (the rule is rooted at the Softmax and walks out from it):
//
//   q [B,S,E] -> Reshape [B,S,H,D] -> Transpose(0,2,1,3) -> RoPE? -> MatMul -> Div|Mul by a scalar? -> Softmax
//   k [B,S,E] -> Reshape [B,S,H,D] -> Transpose(0,2,1,3) -> RoPE? -> Transpose(0,1,3,2) -^          (last axis)
//   v [B,S,E] -> Reshape [B,S,H,D] -> Transpose(0,2,1,3) --------------------------------> MatMul(softmax, v)
//   -> Transpose(0,2,1,3) -> Reshape [B,S,E]
//
// RoPE on consecutive pairs, as torch code writes it and both exporters keep it:
//   e = x[..., 0::2], o = x[..., 1::2] (two Slices); stack(e*cos - o*sin, e*sin + o*cos, -1) (Unsqueeze x2,
//   Concat) -> Reshape back to [B,H,S,D], with cos and sin constant [S, D/2] tables (folded at plan time when
//   the model computes them from positions). q and k must use the same tables.
// The tables become float32 constants [S, D/2] of the fused node, so the fp16/bf16 modes keep them exact.
//
// attention_projection, after the linear rules: when q, k and v come from three ie.Linear of one input x (constant
// weights, no activation or residual, read by this attention alone), they join the node (projection = 1): one
// [K, 3E] weight and [3E] bias, so a kernel can read x once and keep q, k and v on chip.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>

#include "engine/core/float_convert.h"
#include "engine/planner/fusion.h"

namespace ie {
namespace {

// The nodes of one candidate match, found by walking from the Softmax; every step checks op and shape.
class AttentionMatcher {
 public:
  explicit AttentionMatcher(FusionContext& ctx) : m_ctx(ctx) {}

  bool match(size_t softmax) {
    const Node& sm = take_index(softmax);
    if (sm.op_type != "Softmax" || !sm.domain.empty()) return false;
    const TensorInfo* scores = m_ctx.info(sm.inputs[0]);
    if (!scores || scores->shape.size() != 4 || !float_type(scores->dtype)) return false;
    // Before opset 13 a Softmax without an axis works on [d0, d1*d2*d3], not on the last axis.
    if (!sm.attrs.has("axis") && m_ctx.graph().opset < 13) return false;
    const int64_t axis = sm.attrs.get_int("axis", -1);
    if (axis != -1 && axis != 3) return false;
    m_dtype = scores->dtype;
    m_batch = scores->shape[0];
    m_heads = scores->shape[1];
    m_seq = scores->shape[2];
    if (scores->shape[3] != m_seq) return false;  // self-attention: keys and queries share positions

    // Optional scalar scale between the scores' MatMul and the Softmax.
    const Node* mm1 = producer(sm.inputs[0]);
    if (!mm1) return false;
    m_scale = 1.0;
    if (mm1->op_type == "Div" || mm1->op_type == "Mul") {
      const Node& s = *mm1;
      double c = 0;
      const bool c_second = m_ctx.scalar_value(s.inputs[1], c);
      if (!c_second && !(s.op_type == "Mul" && m_ctx.scalar_value(s.inputs[0], c))) return false;
      if (s.op_type == "Div" && (!c_second || c == 0)) return false;
      m_scale = s.op_type == "Div" ? 1.0 / c : c;
      mm1 = producer(s.inputs[c_second ? 0 : 1]);
      if (!mm1) return false;
    }
    if (mm1->op_type != "MatMul" || !mm1->domain.empty()) return false;

    // K^T: a Transpose swapping the last two dims of the (rotated) key heads.
    const Node* kt = producer(mm1->inputs[1]);
    if (!kt || kt->op_type != "Transpose" || kt->attrs.get_ints("perm") != std::vector<int64_t>{0, 1, 3, 2})
      return false;
    std::string q, k, v;
    Tables q_tables, k_tables;
    if (!rotated_heads(mm1->inputs[0], q, q_tables) || !rotated_heads(kt->inputs[0], k, k_tables)) return false;
    if (q_tables.present() != k_tables.present()) return false;
    if (q_tables.present() && !(same_values(q_tables.cos, k_tables.cos) && same_values(q_tables.sin, k_tables.sin)))
      return false;
    m_tables = q_tables;

    // softmax @ v, then the heads merged back.
    const Node* mm2 = sole_reader(sm.outputs[0]);
    if (!mm2 || mm2->op_type != "MatMul" || mm2->inputs[0] != sm.outputs[0]) return false;
    if (!heads(mm2->inputs[1], v)) return false;
    const Node* merge = sole_reader(mm2->outputs[0]);
    if (!merge || !is_transpose_0213(*merge)) return false;
    const Node* flat = sole_reader(merge->outputs[0]);
    if (!flat || flat->op_type != "Reshape") return false;
    const TensorInfo* out = m_ctx.info(flat->outputs[0]);
    if (!out || out->shape != Shape{m_batch, m_seq, m_heads * m_dim}) return false;
    m_q = q;
    m_k = k;
    m_v = v;
    m_output = flat->outputs[0];
    return inside_only();
  }

  Node build(const std::string& name) {
    Node n;
    n.name = name + "/attention";
    n.domain = "ie";
    n.op_type = "Attention";
    n.inputs = {m_q, m_k, m_v};
    n.outputs = {m_output};
    n.attrs.set_int("heads", m_heads);
    n.attrs.set_float("scale", static_cast<float>(m_scale));
    n.attrs.set_string("rope", m_tables.present() ? "interleaved" : "none");
    if (m_tables.present()) {
      n.inputs.push_back(m_ctx.add_constant(name + "/rope_cos", table(*m_tables.cos)));
      n.inputs.push_back(m_ctx.add_constant(name + "/rope_sin", table(*m_tables.sin)));
    }
    return n;
  }

  const std::vector<size_t>& nodes() const { return m_nodes; }

 private:
  struct Tables {
    const Tensor* cos = nullptr;
    const Tensor* sin = nullptr;
    bool present() const { return cos != nullptr; }
  };

  static bool float_type(DType t) { return t == DType::Float32 || t == DType::Float16; }

  static bool is_transpose_0213(const Node& n) {
    return n.op_type == "Transpose" && n.domain.empty() && n.attrs.get_ints("perm") == std::vector<int64_t>{0, 2, 1, 3};
  }

  const Node& take_index(size_t index) {
    m_nodes.push_back(index);
    return m_ctx.node(index);
  }

  // The untaken node producing `tensor`, added to the match; null when there is none.
  const Node* producer(const std::string& tensor) {
    const int p = m_ctx.producer(tensor);
    if (p < 0 || m_ctx.is_taken(static_cast<size_t>(p))) return nullptr;
    if (std::find(m_nodes.begin(), m_nodes.end(), static_cast<size_t>(p)) == m_nodes.end())
      m_nodes.push_back(static_cast<size_t>(p));
    return &m_ctx.node(static_cast<size_t>(p));
  }

  // The one untaken node reading `tensor`, added to the match.
  const Node* sole_reader(const std::string& tensor) {
    const int r = m_ctx.sole_consumer(tensor);
    if (r < 0 || m_ctx.is_taken(static_cast<size_t>(r))) return nullptr;
    m_nodes.push_back(static_cast<size_t>(r));
    return &m_ctx.node(static_cast<size_t>(r));
  }

  // `x` [B,H,S,D] is Transpose(0,2,1,3) of Reshape(t [B,S,H*D]) -> t; sets the head dim on first use.
  bool heads(const std::string& x, std::string& t) {
    const TensorInfo* xi = m_ctx.info(x);
    if (!xi || xi->shape.size() != 4 || xi->dtype != m_dtype) return false;
    const Shape& s = xi->shape;
    if (s[0] != m_batch || s[1] != m_heads || s[2] != m_seq) return false;
    if (m_dim == 0) m_dim = s[3];
    if (s[3] != m_dim) return false;
    const Node* tr = producer(x);
    if (!tr || !is_transpose_0213(*tr)) return false;
    const Node* rs = producer(tr->inputs[0]);
    if (!rs || rs->op_type != "Reshape" || !rs->domain.empty()) return false;
    const TensorInfo* in = m_ctx.info(rs->inputs[0]);
    if (!in || in->shape != Shape{m_batch, m_seq, m_heads * m_dim} || in->dtype != m_dtype) return false;
    t = rs->inputs[0];
    return true;
  }

  // `x` is either the heads themselves or RoPE applied to them.
  bool rotated_heads(const std::string& x, std::string& t, Tables& tables) {
    const int p = m_ctx.producer(x);
    if (p >= 0 && m_ctx.node(static_cast<size_t>(p)).op_type == "Transpose") return heads(x, t);
    return rope(x, t, tables);
  }

  // Int values of a constant (int32 or int64); empty when not constant.
  std::vector<int64_t> ints(const std::string& tensor) const {
    const Tensor* c = m_ctx.constant(tensor);
    std::vector<int64_t> out;
    if (!c) return out;
    for (int64_t i = 0; i < c->numel(); ++i) {
      if (c->dtype() == DType::Int64)
        out.push_back(c->data_as<int64_t>()[i]);
      else if (c->dtype() == DType::Int32)
        out.push_back(c->data_as<int32_t>()[i]);
      else
        return {};
    }
    return out;
  }

  // Slice(heads, start, to the end, last axis, step 2) -> the heads' tensor; `start` 0 (even) or 1 (odd).
  bool strided_half(const Node& s, int64_t start, std::string& source) {
    if (s.op_type != "Slice" || !s.domain.empty() || s.inputs.size() < 5) return false;
    const std::vector<int64_t> st = ints(s.inputs[1]), en = ints(s.inputs[2]), ax = ints(s.inputs[3]),
                               sp = ints(s.inputs[4]);
    if (st != std::vector<int64_t>{start} || sp != std::vector<int64_t>{2} || en.size() != 1 || ax.size() != 1)
      return false;
    if (ax[0] != 3 && ax[0] != -1) return false;
    source = s.inputs[0];
    const TensorInfo* src = m_ctx.info(source);
    return src && src->shape.size() == 4 && en[0] >= src->shape[3];
  }

  // Mul of a strided half by a constant table: sets `half` (the Slice node) and `table`.
  bool table_product(const std::string& tensor, const Node*& half, const Tensor*& table) {
    const Node* mul = producer(tensor);
    if (!mul || mul->op_type != "Mul" || !mul->domain.empty()) return false;
    for (int side = 0; side < 2; ++side) {
      const Tensor* c = m_ctx.constant(mul->inputs[side]);
      if (!c) continue;
      half = producer(mul->inputs[1 - side]);
      table = c;
      return half != nullptr;
    }
    return false;
  }

  // Unsqueeze(x, last axis): returns the squeezed input.
  bool unsqueezed(const Node* n, std::string& in) {
    if (!n || n->op_type != "Unsqueeze" || !n->domain.empty()) return false;
    std::vector<int64_t> axes = n->inputs.size() > 1 ? ints(n->inputs[1]) : n->attrs.get_ints("axes");
    if (axes != std::vector<int64_t>{-1} && axes != std::vector<int64_t>{4}) return false;
    in = n->inputs[0];
    return true;
  }

  // x = Reshape(Concat(Unsqueeze(e*cos - o*sin), Unsqueeze(e*sin + o*cos), axis -1)) over heads -> heads' input.
  bool rope(const std::string& x, std::string& t, Tables& tables) {
    const Node* back = producer(x);
    if (!back || back->op_type != "Reshape") return false;
    const Node* cat = producer(back->inputs[0]);
    if (!cat || cat->op_type != "Concat" || cat->inputs.size() != 2) return false;
    const int64_t cat_axis = cat->attrs.get_int("axis", 0);
    if (cat_axis != -1 && cat_axis != 4) return false;
    std::string re_name, ro_name;
    if (!unsqueezed(producer(cat->inputs[0]), re_name) || !unsqueezed(producer(cat->inputs[1]), ro_name)) return false;
    const Node* re = producer(re_name);
    const Node* ro = producer(ro_name);
    if (!re || re->op_type != "Sub" || !ro || ro->op_type != "Add") return false;
    // re = e*cos - o*sin: the Sub's operands in that order.
    const Node *e1 = nullptr, *o1 = nullptr, *h2a = nullptr, *h2b = nullptr;
    const Tensor *cos1 = nullptr, *sin1 = nullptr, *t2a = nullptr, *t2b = nullptr;
    if (!table_product(re->inputs[0], e1, cos1) || !table_product(re->inputs[1], o1, sin1)) return false;
    if (!table_product(ro->inputs[0], h2a, t2a) || !table_product(ro->inputs[1], h2b, t2b)) return false;
    // ro = e*sin + o*cos, in either order.
    if (h2a == o1) {
      std::swap(h2a, h2b);
      std::swap(t2a, t2b);
    }
    if (h2a != e1 || h2b != o1) return false;
    std::string even_src, odd_src;
    if (!strided_half(*e1, 0, even_src) || !strided_half(*o1, 1, odd_src) || even_src != odd_src) return false;
    if (!same_values(cos1, t2b) || !same_values(sin1, t2a)) return false;
    if (!heads(even_src, t)) return false;
    const TensorInfo* xi = m_ctx.info(x);
    if (!xi || xi->shape != Shape{m_batch, m_heads, m_seq, m_dim} || m_dim % 2 != 0) return false;
    if (!table_shape(*cos1) || !table_shape(*sin1)) return false;
    tables.cos = cos1;
    tables.sin = sin1;
    return true;
  }

  // A table broadcasting as [S, D/2] over [B, H, S, D/2]: leading dims 1.
  bool table_shape(const Tensor& t) const {
    if (t.dtype() != DType::Float32 && t.dtype() != DType::Float16) return false;
    if (t.rank() < 2 || t.dim(t.rank() - 1) != m_dim / 2 || t.dim(t.rank() - 2) != m_seq) return false;
    for (size_t i = 0; i + 2 < t.rank(); ++i)
      if (t.dim(i) != 1) return false;
    return true;
  }

  static bool same_values(const Tensor* a, const Tensor* b) {
    if (a == b) return true;
    if (!a || !b || a->dtype() != b->dtype() || a->numel() != b->numel()) return false;
    return std::memcmp(a->data(), b->data(), a->nbytes()) == 0;
  }

  Tensor table(const Tensor& t) const { return convert_floats(t, DType::Float32).reshaped({m_seq, m_dim / 2}); }

  // Every tensor made inside the match is read inside it only (the output aside), and no node is shared.
  bool inside_only() const {
    std::set<size_t> set(m_nodes.begin(), m_nodes.end());
    if (set.size() != m_nodes.size()) return false;
    for (size_t i : m_nodes) {
      const Node& n = m_ctx.node(i);
      if (m_ctx.is_taken(i) || n.outputs.size() != 1) return false;
      const std::string& o = n.outputs[0];
      if (o == m_output) continue;
      if (m_ctx.graph().is_graph_output(o)) return false;
      for (size_t c : m_ctx.consumers(o))
        if (!set.count(c)) return false;
    }
    return true;
  }

  FusionContext& m_ctx;
  std::vector<size_t> m_nodes;
  DType m_dtype = DType::Undefined;
  int64_t m_batch = 0, m_heads = 0, m_seq = 0, m_dim = 0;
  double m_scale = 1.0;
  Tables m_tables;
  std::string m_q, m_k, m_v, m_output;
};

bool try_attention(FusionContext& ctx, size_t index) {
  const Node& root = ctx.node(index);
  if (root.op_type != "Softmax" || ctx.is_taken(index)) return false;
  AttentionMatcher m(ctx);
  if (!m.match(index)) return false;
  const std::string name = root.name;
  return ctx.replace(m.nodes(), m.build(name), "attention");
}

// A Linear that can be packed: constant float W and bias (when given), no activation, no residual.
const Tensor* plain_weight(const FusionContext& ctx, const Node& lin, const Tensor** bias) {
  if (lin.op_type != "Linear" || lin.domain != "ie" || !lin.attrs.get_string("activation", "").empty()) return nullptr;
  if (lin.inputs.size() > 3 && !lin.inputs[3].empty()) return nullptr;
  const Tensor* w = ctx.constant(lin.inputs[1]);
  if (!w || w->rank() != 2 || (w->dtype() != DType::Float32 && w->dtype() != DType::Float16)) return nullptr;
  *bias = lin.inputs.size() > 2 && !lin.inputs[2].empty() ? ctx.constant(lin.inputs[2]) : nullptr;
  if (lin.inputs.size() > 2 && !lin.inputs[2].empty() && !*bias) return nullptr;
  return w;
}

bool try_projection(FusionContext& ctx, size_t index) {
  const Node& att = ctx.node(index);
  if (att.op_type != "Attention" || att.domain != "ie" || att.attrs.get_int("projection", 0) != 0) return false;
  std::vector<size_t> matched;
  std::vector<const Node*> lins;
  for (size_t i = 0; i < 3; ++i) {
    const int p = ctx.producer(att.inputs[i]);
    if (p < 0 || ctx.is_taken(static_cast<size_t>(p)) || ctx.sole_consumer(att.inputs[i]) != static_cast<int>(index))
      return false;
    lins.push_back(&ctx.node(static_cast<size_t>(p)));
    matched.push_back(static_cast<size_t>(p));
  }
  const std::string& x = lins[0]->inputs[0];
  const TensorInfo* xi = ctx.info(x);
  if (!xi || xi->shape.size() != 3) return false;
  const int64_t k = xi->shape[2];
  const int64_t e = ctx.info(att.inputs[0])->shape[2];
  // W [K, 3E] as float32: column block i is input i's weight, read as the Linear reads it (trans_w or not).
  Tensor w(DType::Float32, {k, 3 * e});
  Tensor bias(DType::Float32, {3 * e});
  float* wp = w.data_as<float>();
  float* bp = bias.data_as<float>();
  for (size_t i = 0; i < 3; ++i) {
    const Tensor* b = nullptr;
    const Tensor* wi = plain_weight(ctx, *lins[i], &b);
    if (!wi || lins[i]->inputs[0] != x) return false;
    const bool trans = lins[i]->attrs.get_int("trans_w", 1) != 0;
    if (wi->dim(trans ? 1 : 0) != k || wi->dim(trans ? 0 : 1) != e) return false;
    const Tensor w32 = convert_floats(*wi, DType::Float32);
    const float* src = w32.data_as<float>();
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < e; ++c) wp[r * 3 * e + i * e + c] = trans ? src[c * k + r] : src[r * e + c];
    if (b && b->numel() != e) return false;
    const Tensor b32 = b ? convert_floats(*b, DType::Float32) : Tensor();
    for (int64_t c = 0; c < e; ++c) bp[i * e + c] = b ? b32.data_as<float>()[c] : 0.f;
  }
  const DType type = xi->dtype;
  Node fused = att;
  fused.covers.clear();  // replace() collects the covers of every matched node
  fused.replaced.clear();
  fused.inputs = {x, ctx.add_constant(att.name + "/qkv_weight", convert_floats(w, type)),
                  ctx.add_constant(att.name + "/qkv_bias", convert_floats(bias, type))};
  if (att.inputs.size() > 4) fused.inputs.insert(fused.inputs.end(), att.inputs.begin() + 3, att.inputs.end());
  fused.attrs.set_int("projection", 1);
  matched.push_back(index);
  return ctx.replace(matched, fused, "attention_projection");
}

}  // namespace

IE_REGISTER_FUSION(attention) { return FusionRule{"attention", 60, try_attention}; }
IE_REGISTER_FUSION(attention_projection) { return FusionRule{"attention_projection", 70, try_projection}; }

}  // namespace ie
