#include "engine/ir/preprocess.h"

#include <algorithm>

#include "engine/core/error.h"

namespace ie {

namespace {

Tensor int64_vector(const std::vector<int64_t>& v) {
  Tensor t(DType::Int64, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data_as<int64_t>());
  return t;
}

class Builder {
 public:
  Builder(Graph& g) : m_g(g) {}
  std::string constant(const std::string& name, Tensor t) {
    std::string n = "preprocess/" + name;
    m_g.constants[n] = std::move(t);
    return n;
  }
  std::string add(const std::string& op, std::vector<std::string> inputs, Attributes attrs = {}) {
    Node n;
    n.name = "preprocess/" + op + "_" + std::to_string(m_nodes.size());
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {n.name + "_out"};
    n.attrs = std::move(attrs);
    m_nodes.push_back(n);
    return n.outputs[0];
  }
  std::vector<Node>& nodes() { return m_nodes; }

 private:
  Graph& m_g;
  std::vector<Node> m_nodes;
};

}  // namespace

void prepend_preprocessing(Graph& g, const ModelConfig& cfg) {
  auto it = std::find_if(g.inputs.begin(), g.inputs.end(), [&](const TensorDecl& d) { return d.name == cfg.input.name; });
  if (it == g.inputs.end())
    fail_input(cfg.path, ": the model ", g.source, " has no input named '", cfg.input.name, "'");
  Builder b(g);
  std::string x = cfg.raw_input.name;
  size_t rank = cfg.raw_input.dims.size();
  for (size_t i = 0; i < cfg.preprocess.size(); ++i) {
    const PreprocessStep& s = cfg.preprocess[i];
    Attributes a;
    if (s.op == "cast") {
      a.set_int("to", static_cast<int64_t>(s.to));
      x = b.add("Cast", {x}, a);
    } else if (s.op == "scale") {
      Tensor f(DType::Float32, {});
      *f.data_as<float>() = static_cast<float>(s.factor);
      x = b.add("Mul", {x, b.constant("factor_" + std::to_string(i), f)});
    } else if (s.op == "unsqueeze") {
      x = b.add("Unsqueeze", {x, b.constant("axes_" + std::to_string(i), int64_vector({s.axis}))});
      ++rank;
    } else if (s.op == "resize") {
      // sizes = shape(x)[: rank - k] ++ size, folded at plan time once the batch is bound
      int64_t keep = static_cast<int64_t>(rank) - static_cast<int64_t>(s.size.size());
      if (keep < 0) fail_input(cfg.path, ": preprocess[", i, "]: resize size has more dims than the tensor");
      std::string shape = b.add("Shape", {x});
      Attributes none;
      std::string lead = b.add("Slice", {shape, b.constant("zero_" + std::to_string(i), int64_vector({0})),
                                         b.constant("keep_" + std::to_string(i), int64_vector({keep}))});
      Attributes axis0;
      axis0.set_int("axis", 0);
      std::string sizes = b.add("Concat", {lead, b.constant("size_" + std::to_string(i), int64_vector(s.size))}, axis0);
      a.set_string("mode", s.mode);
      a.set_string("coordinate_transformation_mode", s.coordinate_transformation_mode);
      if (s.mode == "nearest") a.set_string("nearest_mode", "round_prefer_floor");
      x = b.add("Resize", {x, "", "", sizes}, a);
    }
  }
  if (b.nodes().empty()) fail_input(cfg.path, ": 'raw_input' is given but 'preprocess' has no steps");
  b.nodes().back().outputs[0] = cfg.input.name;
  g.inputs.erase(it);
  g.inputs.insert(g.inputs.begin(), cfg.raw_input);
  g.nodes.insert(g.nodes.begin(), b.nodes().begin(), b.nodes().end());
  g.topological_sort();
}

}  // namespace ie
