#include "tools/common/input_files.h"

#include <algorithm>
#include <optional>

#include "engine/io/tensor_file.h"
#include "tools/common/cli.h"

namespace ie::cli {

// "name=value" items into a map; a bare value is keyed "" (the model's only input).
std::map<std::string, std::string> split_named(const std::vector<std::string>& items, const char* flag) {
  std::map<std::string, std::string> out;
  for (auto& item : items) {
    auto eq = item.find('=');
    std::string key = eq == std::string::npos ? "" : item.substr(0, eq);
    std::string value = eq == std::string::npos ? item : item.substr(eq + 1);
    if (out.count(key)) throw Error(ErrorKind::Usage, std::string(flag) + " given twice for '" + key + "'");
    out[key] = value;
  }
  return out;
}

std::map<std::string, Tensor> read_named_inputs(const std::vector<std::string>& input_items,
                                                const std::vector<std::string>& shape_items,
                                                const std::vector<std::string>& dtype_items,
                                                const std::vector<std::string>& graph_inputs) {
  auto files = split_named(input_items, "--input");
  auto shapes = split_named(shape_items, "--shape");
  auto dtypes = split_named(dtype_items, "--dtype");
  if (files.empty()) throw Error(ErrorKind::Usage, "--input is required");
  if (files.count("") && graph_inputs.size() != 1)
    throw Error(ErrorKind::Usage, "the model has " + std::to_string(graph_inputs.size()) +
                                      " inputs: name each one with --input NAME=PATH");
  std::map<std::string, Tensor> out;
  for (auto& [key, path] : files) {
    std::string name = key.empty() ? graph_inputs[0] : key;
    if (std::find(graph_inputs.begin(), graph_inputs.end(), name) == graph_inputs.end())
      throw Error(ErrorKind::Usage, "--input '" + name + "': the model has no such input");
    std::optional<std::vector<int64_t>> shape;
    std::optional<ie::DType> dtype;
    for (const std::string* k : std::initializer_list<const std::string*>{&key, &name}) {
      if (shapes.count(*k)) shape = parse_shape(shapes.at(*k), "--shape");
      if (dtypes.count(*k)) dtype = dtype_from_name(dtypes.at(*k));
    }
    out[name] = read_tensor_file(path, shape, dtype);
  }
  for (auto& [key, v] : shapes)
    if (!files.count(key) && !out.count(key)) throw Error(ErrorKind::Usage, "--shape '" + key + "' names no --input");
  for (auto& [key, v] : dtypes)
    if (!files.count(key) && !out.count(key)) throw Error(ErrorKind::Usage, "--dtype '" + key + "' names no --input");
  return out;
}

std::map<std::string, Tensor> read_config_input(const std::vector<std::string>& files,
                                                const std::vector<std::string>& shape_items,
                                                const std::vector<std::string>& dtype_items, const ModelConfig& cfg,
                                                bool* raw) {
  if (files.size() != 1 || files[0].find('=') != std::string::npos)
    throw Error(ErrorKind::Usage, "with --config give one --input file (raw data or the model's input)");
  auto shapes = split_named(shape_items, "--shape");
  auto dtypes = split_named(dtype_items, "--dtype");
  std::optional<std::vector<int64_t>> shape;
  std::optional<DType> dtype;
  if (shapes.count("")) shape = parse_shape(shapes.at(""), "--shape");
  if (dtypes.count("")) dtype = dtype_from_name(dtypes.at(""));
  Tensor t = read_tensor_file(files[0], shape, dtype);
  *raw = !cfg.raw_input.name.empty() && t.dtype() == cfg.raw_input.dtype;
  return {{*raw ? cfg.raw_input.name : cfg.input.name, t}};
}

}  // namespace ie::cli
