#include "tools/common/model_source.h"

#include <filesystem>

namespace ie::cli {

void ModelSource::add_options(CLI::App& app) {
  app.add_option("--model", model, "any ONNX model");
  app.add_option("--config", config, "model config (YAML): model, pre-processing, task, name");
  app.add_option("--form", form, "with --config: which export to run, legacy or dynamo");
  app.add_flag("--raw", raw, "with --config: feed the raw input (e.g. uint8 images) through the pre-processing");
}

void ModelSource::validate() const {
  if (config.empty() == model.empty()) throw Error(ErrorKind::Usage, "give exactly one of --config or --model");
  if (form != "legacy" && form != "dynamo") throw Error(ErrorKind::Usage, "--form must be legacy or dynamo");
  if (!model.empty() && form != "legacy") throw Error(ErrorKind::Usage, "--form applies to --config only");
  if (!model.empty() && raw) throw Error(ErrorKind::Usage, "--raw applies to --config only");
  if (raw && config_data().raw_input.name.empty())
    throw Error(ErrorKind::Usage, config + " declares no raw_input, so --raw has nothing to feed");
}

const ModelConfig& ModelSource::config_data() const {
  if (!m_loaded && !config.empty()) {
    m_config = load_model_config(config);
    if (form == "dynamo") {
      if (m_config.onnx_dynamo.empty()) throw Error(ErrorKind::Usage, config + " names no onnx_dynamo file");
      m_config.onnx = m_config.onnx_dynamo;
    }
  }
  m_loaded = true;
  return m_config;
}

std::string ModelSource::onnx_path() const { return config.empty() ? model : config_data().onnx; }

std::string ModelSource::name() const {
  if (!config.empty() && !config_data().name.empty()) return config_data().name;
  return std::filesystem::path(onnx_path()).stem().string();
}

Engine ModelSource::load(const Options& options) const {
  if (config.empty()) return Engine::load(model, options);
  return Engine::load(config_data(), options, raw);
}

}  // namespace ie::cli
