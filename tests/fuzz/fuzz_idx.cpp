// libFuzzer harness: an IDX file (Fashion-MNIST's format) through the reader, plain and gzip-compressed: the first
// byte's low bit picks the file name's extension, the rest is the file.
//   tools/fuzz.sh idx 600
#include "engine/io/idx.h"
#include "fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const char* suffix = (data[0] & 1) ? "-ubyte.gz" : "-ubyte";
  ie::fuzz::with_file(data + 1, size - 1, suffix, [](const std::string& path) { (void)ie::read_idx(path); });
  return 0;
}
