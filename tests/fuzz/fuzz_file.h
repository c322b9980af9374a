// What every harness shares: the readers take paths, so each input is written to a file of this process (on
// /dev/shm when it exists) and the reader runs on it. The library's own error (ie::Error: a clear message and an
// exit code) is the expected answer to a bad file; anything else escapes to libFuzzer as a crash.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "engine/core/exception.h"

namespace ie::fuzz {

/// The harness's scratch file, with `suffix` (the readers pick formats by extension: ".gz", ".npy").
inline std::string scratch_path(const std::string& suffix) {
  const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return std::string(dir) + "/ie_fuzz_" + std::to_string(getpid()) + suffix;
}

/// Writes `data` to the scratch file and calls `read(path)`; ie::Error is a good answer and is swallowed.
inline void with_file(const uint8_t* data, size_t size, const std::string& suffix,
                      const std::function<void(const std::string&)>& read) {
  const std::string path = scratch_path(suffix);
  FILE* f = fopen(path.c_str(), "wb");
  if (!f) return;
  if (size) fwrite(data, 1, size, f);
  fclose(f);
  try {
    read(path);
  } catch (const ie::Error&) {
  }
}

}  // namespace ie::fuzz
