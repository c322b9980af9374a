// Model configuration files (YAML): which ONNX file, its input, the pre-processing that turns raw data files into
// that input, what the outputs mean. See configs/convnet.yaml.
//
//   ie::ModelConfig cfg = ie::load_model_config("configs/convnet.yaml");
//   ie::Engine engine = ie::Engine::load(cfg, opts);   // graph = pre-processing + model, one plan
#pragma once

#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie {

/// One pre-processing step, run as engine ops in front of the model.
struct PreprocessStep {
  std::string op;                          // "cast", "scale", "unsqueeze", "resize"
  DType to = DType::Float32;               // cast
  double factor = 1.0;                     // scale: x * factor
  int64_t axis = 0;                        // unsqueeze
  std::vector<int64_t> size;               // resize: output size of the last dims
  std::string mode = "linear";             // resize: linear | nearest
  std::string coordinate_transformation_mode = "half_pixel";
};

struct OutputSpec {
  std::string name;
  std::string meaning;
};

struct ModelConfig {
  std::string path;                        // the YAML file
  std::string name;
  std::string onnx;                        // resolved path of the ONNX file (legacy export)
  std::string onnx_dynamo;                 // resolved path of the dynamo export, if the config names one
  std::string task;                        // "classification" | "autoencoder" | "" (plain)
  int64_t batch_size = 1;
  TensorDecl input;                        // the model's own input (dims: -1 = batch)
  TensorDecl raw_input;                    // what data files hold (name empty: no pre-processing)
  std::vector<PreprocessStep> preprocess;
  std::vector<OutputSpec> outputs;
  std::vector<std::string> class_names;    // classification: names in label order
};

/// Parses a config; throws Error(BadInput) naming the file and the field that is wrong or missing.
ModelConfig load_model_config(const std::string& path);

}  // namespace ie
