#include "engine/loader/onnx_loader.h"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/core/error.h"
#include "engine/io/file_util.h"
#include "engine/loader/tensor_proto.h"

namespace ie {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 23;

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) fail_input(path, ": file not found");
  if (fs::is_directory(path, ec)) fail_input(path, ": is a folder, expected an .onnx file");
  check_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_input(path, ": cannot be opened");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Attribute convert_attribute(const onnx::AttributeProto& a, const std::string& model_dir, const std::string& where) {
  Attribute out;
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::FLOAT: out.kind = Attribute::Kind::Float; out.f = a.f(); break;
    case A::INT: out.kind = Attribute::Kind::Int; out.i = a.i(); break;
    case A::STRING: out.kind = Attribute::Kind::String; out.s = a.s(); break;
    case A::TENSOR:
      out.kind = Attribute::Kind::Tensor;
      out.t = tensor_from_proto(a.t(), model_dir, where + " attribute '" + a.name() + "'");
      break;
    case A::FLOATS: out.kind = Attribute::Kind::Floats; out.floats.assign(a.floats().begin(), a.floats().end()); break;
    case A::INTS: out.kind = Attribute::Kind::Ints; out.ints.assign(a.ints().begin(), a.ints().end()); break;
    case A::STRINGS: out.kind = Attribute::Kind::Strings; out.strings.assign(a.strings().begin(), a.strings().end()); break;
    case A::GRAPH: case A::GRAPHS: out.kind = Attribute::Kind::Graph; break;
    default: out.kind = Attribute::Kind::Other; break;
  }
  return out;
}

TensorDecl convert_value_info(const onnx::ValueInfoProto& v, const std::string& path) {
  TensorDecl d;
  d.name = v.name();
  if (!v.type().has_tensor_type())
    fail_unsupported(path, ": graph value '", v.name(), "' is not a tensor (sequences and maps are not supported)");
  auto& tt = v.type().tensor_type();
  d.dtype = static_cast<DType>(tt.elem_type());
  if (dtype_size(d.dtype) == 0 || d.dtype == DType::BFloat16)
    fail_unsupported(path, ": graph value '", v.name(), "' has unsupported element type ", dtype_name(d.dtype),
                     " (ONNX code ", tt.elem_type(), ")");
  if (tt.has_shape()) {
    for (auto& dim : tt.shape().dim()) {
      if (dim.has_dim_value()) {
        d.dims.push_back(dim.dim_value());
        d.dim_names.emplace_back();
      } else {
        d.dims.push_back(-1);
        d.dim_names.push_back(dim.has_dim_param() ? dim.dim_param() : "");
      }
    }
  } else {
    d.has_shape = false;
  }
  return d;
}

void check_opsets(const onnx::ModelProto& model, const std::string& path, Graph& g) {
  for (auto& n : model.graph().node()) {
    std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
    if (!domain.empty())
      fail_unsupported(path, ": node '", n.name(), "' (", n.op_type(), ") uses domain '", domain,
                       "', which this engine does not support (only the default ONNX domain)");
  }
  for (auto& op : model.opset_import()) {
    const std::string& domain = op.domain();
    if (domain.empty() || domain == "ai.onnx") {
      g.opset = op.version();
      if (op.version() < kMinOpset || op.version() > kMaxOpset)
        fail_unsupported(path, ": default-domain opset ", op.version(), " is not supported (supported: ", kMinOpset,
                         " to ", kMaxOpset, ")");
    }
  }
  if (g.opset == 0) fail_input(path, ": the model imports no opset of the default ONNX domain");
}

}  // namespace

Graph load_onnx(const std::string& path) {
  std::string bytes = read_file(path);
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes))
    fail_input(path, ": not a valid ONNX model (the protobuf could not be parsed; is the file truncated or corrupt?)");
  if (!model.has_graph()) fail_input(path, ": the model has no graph");

  Graph g;
  g.source = path;
  std::string model_dir = fs::path(path).parent_path().string();
  check_opsets(model, path, g);
  const auto& graph = model.graph();

  if (graph.sparse_initializer_size() > 0) fail_unsupported(path, ": sparse initializers are not supported");
  for (auto& init : graph.initializer()) {
    if (init.name().empty()) fail_input(path, ": an initializer has no name");
    g.constants[init.name()] = tensor_from_proto(init, model_dir, path + ": initializer '" + init.name() + "'");
  }
  for (auto& in : graph.input())
    if (!g.constants.count(in.name())) g.inputs.push_back(convert_value_info(in, path));
  std::set<std::string> output_names;
  for (auto& out : graph.output()) {
    // ONNX requires unique output names; a duplicate would make two outputs of one tensor (and two files).
    if (!output_names.insert(out.name()).second)
      fail_input(path, ": graph output '", out.name(), "' is listed twice (output names must be unique)");
    g.outputs.push_back(convert_value_info(out, path));
  }

  int counter = 0;
  for (auto& n : graph.node()) {
    Node node;
    node.name = n.name().empty() ? n.op_type() + "_" + std::to_string(counter) : n.name();
    ++counter;
    node.op_type = n.op_type();
    node.domain = n.domain() == "ai.onnx" ? "" : n.domain();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (auto& a : n.attribute())
      node.attrs.set(a.name(), convert_attribute(a, model_dir, path + ": " + node.label()));
    g.nodes.push_back(std::move(node));
  }
  g.topological_sort();
  return g;
}

Tensor load_tensor_proto(const std::string& path) {
  std::string bytes = read_file(path);
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) fail_input(path, ": not a valid serialized TensorProto");
  return tensor_from_proto(proto, fs::path(path).parent_path().string(), path);
}

}  // namespace ie
