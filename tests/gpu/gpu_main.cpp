// GPU test runner: without a usable GPU every test reports itself skipped and the binary exits with ctest's
// skip code, so the suite shows "Skipped" with the reason instead of a silent pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "engine/backend/backend.h"

int main(int argc, char** argv) {
  std::string reason;
  if (!ie::backend_available(ie::kernel_set::kCudaReference, &reason)) {
    std::cout << "GPU tests skipped: " << reason << "\n";
    return 77;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
