#include "engine/api/model_config.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "engine/core/error.h"
#include "engine/io/file_util.h"

namespace ie {

namespace fs = std::filesystem;

namespace {

TensorDecl parse_decl(const YAML::Node& node, const std::string& where) {
  TensorDecl d;
  if (!node["name"]) fail_input(where, ": missing 'name'");
  d.name = node["name"].as<std::string>();
  d.dtype = dtype_from_name(node["dtype"] ? node["dtype"].as<std::string>() : "float32");
  if (!node["shape"] || !node["shape"].IsSequence()) fail_input(where, ": missing 'shape' (a list, 'batch' for the batch dim)");
  for (auto dim : node["shape"]) {
    std::string s = dim.as<std::string>();
    if (s == "batch") {
      d.dims.push_back(-1);
      d.dim_names.push_back("batch");
    } else {
      d.dims.push_back(dim.as<int64_t>());
      d.dim_names.emplace_back();
    }
  }
  return d;
}

PreprocessStep parse_step(const YAML::Node& node, const std::string& where) {
  PreprocessStep s;
  if (!node["op"]) fail_input(where, ": missing 'op'");
  s.op = node["op"].as<std::string>();
  if (s.op == "cast") {
    s.to = dtype_from_name(node["to"] ? node["to"].as<std::string>() : "float32");
  } else if (s.op == "scale") {
    if (!node["factor"]) fail_input(where, ": scale needs 'factor'");
    s.factor = node["factor"].as<double>();
  } else if (s.op == "unsqueeze") {
    s.axis = node["axis"] ? node["axis"].as<int64_t>() : 1;
  } else if (s.op == "resize") {
    if (!node["size"]) fail_input(where, ": resize needs 'size' (output size of the last dims)");
    s.size = node["size"].as<std::vector<int64_t>>();
    s.mode = node["mode"] ? node["mode"].as<std::string>() : "linear";
    if (s.mode == "bilinear") s.mode = "linear";
    if (s.mode != "linear" && s.mode != "nearest") fail_input(where, ": resize mode must be linear or nearest, got '", s.mode, "'");
    if (node["coordinate_transformation_mode"])
      s.coordinate_transformation_mode = node["coordinate_transformation_mode"].as<std::string>();
  } else {
    fail_input(where, ": unknown op '", s.op, "' (expected cast, scale, unsqueeze or resize)");
  }
  return s;
}

}  // namespace

ModelConfig load_model_config(const std::string& path) {
  if (!fs::exists(path)) fail_input(path, ": config file not found");
  check_regular_file(path);
  ModelConfig c;
  c.path = path;
  try {
    YAML::Node root = YAML::LoadFile(path);
    if (!root.IsMap()) fail_input(path, ": expected a YAML mapping at the top level");
    c.name = root["name"] ? root["name"].as<std::string>() : fs::path(path).stem().string();
    if (!root["onnx"]) fail_input(path, ": missing 'onnx' (path of the model, relative to the config file)");
    fs::path onnx = root["onnx"].as<std::string>();
    c.onnx = onnx.is_absolute() ? onnx.string() : (fs::path(path).parent_path() / onnx).lexically_normal().string();
    if (root["onnx_dynamo"]) {
      fs::path d = root["onnx_dynamo"].as<std::string>();
      c.onnx_dynamo = d.is_absolute() ? d.string() : (fs::path(path).parent_path() / d).lexically_normal().string();
    }
    c.task = root["task"] ? root["task"].as<std::string>() : "";
    c.batch_size = root["batch_size"] ? root["batch_size"].as<int64_t>() : 1;
    if (c.batch_size < 1) fail_input(path, ": batch_size must be >= 1");
    if (!root["input"]) fail_input(path, ": missing 'input'");
    c.input = parse_decl(root["input"], path + ": input");
    if (root["raw_input"]) c.raw_input = parse_decl(root["raw_input"], path + ": raw_input");
    if (root["preprocess"])
      for (size_t i = 0; i < root["preprocess"].size(); ++i)
        c.preprocess.push_back(parse_step(root["preprocess"][i], path + ": preprocess[" + std::to_string(i) + "]"));
    if (!c.preprocess.empty() && c.raw_input.name.empty()) fail_input(path, ": 'preprocess' needs a 'raw_input'");
    if (root["outputs"])
      for (auto o : root["outputs"])
        c.outputs.push_back(OutputSpec{o["name"].as<std::string>(), o["meaning"] ? o["meaning"].as<std::string>() : ""});
    if (root["class_names"]) c.class_names = root["class_names"].as<std::vector<std::string>>();
  } catch (const YAML::Exception& e) {
    fail_input(path, ": invalid YAML: ", e.what());
  }
  return c;
}

}  // namespace ie
