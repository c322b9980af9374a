// The model a tool runs, chosen as infer does: --model any.onnx, or --config model.yaml with --form legacy|dynamo;
// --raw feeds a config's raw input (e.g. uint8 images) through its pre-processing ops.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "engine/api/engine.h"
#include "engine/api/model_config.h"

namespace ie::cli {

struct ModelSource {
  std::string model;            // --model
  std::string config;           // --config
  std::string form = "legacy";  // --form
  bool raw = false;             // --raw

  /// Adds --model, --config, --form and --raw to a tool's command line.
  void add_options(CLI::App& app);
  /// Checks the combination; throws Error(Usage).
  void validate() const;
  /// The config (empty fields without --config).
  const ModelConfig& config_data() const;
  /// The ONNX file that will run.
  std::string onnx_path() const;
  /// A short name for reports and default batch lists: the config's name, else the ONNX file's stem.
  std::string name() const;
  /// Loads an engine for `options` (one per backend path).
  Engine load(const Options& options) const;

 private:
  mutable bool m_loaded = false;
  mutable ModelConfig m_config;
};

}  // namespace ie::cli
