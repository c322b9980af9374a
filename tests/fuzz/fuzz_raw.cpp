// libFuzzer harness: a raw tensor file through the reader with a declared element type and shape: the first byte
// picks the type, the next four the dims (0-255 each, 0 meaning absent), the rest is the file.
//   tools/fuzz.sh raw 600
#include <vector>

#include "engine/io/raw.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  static const ie::DType types[] = {ie::DType::Float32, ie::DType::Float16, ie::DType::BFloat16, ie::DType::UInt8,
                                    ie::DType::Int64,   ie::DType::Int32,   ie::DType::Float64};
  const ie::DType type = types[data[0] % (sizeof types / sizeof types[0])];
  std::vector<int64_t> shape;
  for (size_t i = 1; i < 5; ++i)
    if (data[i]) shape.push_back(data[i]);
  ie::fuzz::with_file(data + 5, size - 5, ".raw",
                      [&](const std::string& path) { (void)ie::read_raw(path, type, shape); });
  return 0;
}
