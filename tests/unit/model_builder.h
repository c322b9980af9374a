// Builds small ONNX models in tests, written to a temporary folder (optionally with external data).
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie::test {

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17);
  /// Graph input; a dim of -1 becomes the symbolic dim "batch".
  ModelBuilder& input(const std::string& name, std::vector<int64_t> dims, int elem = onnx::TensorProto::FLOAT);
  ModelBuilder& output(const std::string& name, int elem = onnx::TensorProto::FLOAT);
  /// Float initializer stored in raw_data (or as external data when external_data() was called).
  ModelBuilder& initializer(const std::string& name, std::vector<int64_t> dims, std::vector<float> values);
  ModelBuilder& initializer_i64(const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> values);
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs);
  /// Later float initializers go to `file` (relative to the model) as ONNX external data.
  ModelBuilder& external_data(const std::string& file) { m_external = file; return *this; }
  /// Writes model.onnx (and external data) under `dir`; returns the model path.
  std::string write(const std::filesystem::path& dir, const std::string& name = "model.onnx");
  onnx::ModelProto& proto() { return m_model; }

 private:
  onnx::ModelProto m_model;
  std::string m_external;
  std::string m_external_bytes;
};

void add_int_attr(onnx::NodeProto& n, const std::string& name, int64_t v);
void add_float_attr(onnx::NodeProto& n, const std::string& name, float v);
void add_ints_attr(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> v);
void add_floats_attr(onnx::NodeProto& n, const std::string& name, std::vector<float> v);
/// A TENSOR attribute holding a float tensor (raw_data).
void add_tensor_attr(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> dims, std::vector<float> v);

/// A fresh empty folder under the system temp dir.
std::filesystem::path temp_dir(const std::string& tag);

/// Tensor filled with reproducible pseudo-random values in [-1, 1).
Tensor random_tensor(std::vector<int64_t> shape, unsigned seed);

}  // namespace ie::test
