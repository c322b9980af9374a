#include "model_builder.h"

#include <fstream>
#include <random>
#include <unistd.h>

namespace ie::test {

ModelBuilder::ModelBuilder(int64_t opset) {
  m_model.set_ir_version(8);
  auto* op = m_model.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  m_model.mutable_graph()->set_name("test");
}

ModelBuilder& ModelBuilder::input(const std::string& name, std::vector<int64_t> dims, int elem) {
  auto* v = m_model.mutable_graph()->add_input();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  for (auto d : dims) {
    auto* dim = tt->mutable_shape()->add_dim();
    if (d < 0) dim->set_dim_param("batch");
    else dim->set_dim_value(d);
  }
  return *this;
}

ModelBuilder& ModelBuilder::output(const std::string& name, int elem) {
  auto* v = m_model.mutable_graph()->add_output();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
  return *this;
}

ModelBuilder& ModelBuilder::initializer(const std::string& name, std::vector<int64_t> dims, std::vector<float> values) {
  auto* t = m_model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  std::string bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  if (m_external.empty()) {
    t->set_raw_data(bytes);
  } else {
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char* k, const std::string& v) {
      auto* kv = t->add_external_data();
      kv->set_key(k);
      kv->set_value(v);
    };
    add("location", m_external);
    add("offset", std::to_string(m_external_bytes.size()));
    add("length", std::to_string(bytes.size()));
    m_external_bytes += bytes;
  }
  return *this;
}

ModelBuilder& ModelBuilder::initializer_i64(const std::string& name, std::vector<int64_t> dims,
                                            std::vector<int64_t> values) {
  auto* t = m_model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  for (auto v : values) t->add_int64_data(v);
  return *this;
}

onnx::NodeProto& ModelBuilder::node(const std::string& op, std::vector<std::string> inputs,
                                    std::vector<std::string> outputs) {
  auto* n = m_model.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + std::to_string(m_model.graph().node_size()));
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  return *n;
}

std::string ModelBuilder::write(const std::filesystem::path& dir, const std::string& name) {
  std::filesystem::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream out(path, std::ios::binary);
  m_model.SerializeToOstream(&out);
  if (!m_external.empty()) {
    std::ofstream ext(dir / m_external, std::ios::binary);
    ext << m_external_bytes;
  }
  return path;
}

void add_int_attr(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void add_float_attr(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void add_ints_attr(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}

void add_floats_attr(onnx::NodeProto& n, const std::string& name, std::vector<float> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (auto x : v) a->add_floats(x);
}

void add_tensor_attr(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> dims, std::vector<float> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
}

std::filesystem::path temp_dir(const std::string& tag) {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("ie_test_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

Tensor random_tensor(std::vector<int64_t> shape, unsigned seed) {
  Tensor t(DType::Float32, std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = dist(gen);
  return t;
}

}  // namespace ie::test
