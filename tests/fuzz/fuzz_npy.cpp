// libFuzzer harness: a .npy file through the reader (header dictionary, dtype, shape, data size).
//   tools/fuzz.sh npy 600
#include "engine/io/npy.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ie::fuzz::with_file(data, size, ".npy", [](const std::string& path) { (void)ie::read_npy(path); });
  return 0;
}
