// libFuzzer harness: an ONNX model file through the loader, then planning at batch 1 on the CPU backend (shape
// inference, constant folding, fusion, kernel selection, the memory plan), with limits a fuzzer's 2 GB can hold.
//   tools/fuzz.sh onnx_model 600
#include <map>
#include <string>
#include <vector>

#include "engine/api/engine.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ie::fuzz::with_file(data, size, ".onnx", [](const std::string& path) {
    ie::Options options;
    options.backend = "cpu";
    options.threads = 1;
    options.limits.max_arena_bytes = options.limits.max_tensor_bytes = uint64_t(256) << 20;
    options.limits.max_op_flops = 1e9;
    const ie::Engine engine = ie::Engine::load(path, options);
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const ie::TensorDecl& d : engine.inputs()) {
      std::vector<int64_t> dims = d.dims;
      for (int64_t& v : dims)
        if (v < 0) v = 1;  // symbolic dims (the batch) at 1
      shapes[d.name] = dims;
    }
    (void)engine.describe(shapes);
  });
  return 0;
}
