// libFuzzer harness: a model-config YAML file through its loader (the fields, their types and ranges, the paths
// it names relative to the file).
//   tools/fuzz.sh model_config 600
#include "engine/api/model_config.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ie::fuzz::with_file(data, size, ".yaml", [](const std::string& path) { (void)ie::load_model_config(path); });
  return 0;
}
