#!/usr/bin/env bash
# Installs the dependencies, builds, and runs the whole test suite (GPU tests report themselves skipped
# on a machine without a usable GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install_deps.sh
bash tools/build.sh
ctest --test-dir build --output-on-failure -j2
# The conformance figure, from the node-test runner's own output.
grep -h "^onnx node tests" build/Testing/Temporary/LastTest.log || true
# The CPU suites again under sanitizers (ASan + UBSan; TSan on what runs on several threads), then every libFuzzer
# harness for 60 s: about 16 minutes more on 2 cores. IE_SANITIZED_TESTS=0 leaves them out.
if [[ ${IE_SANITIZED_TESTS:-1} != 0 ]]; then
  bash tools/sanitize.sh asan
  bash tools/sanitize.sh tsan
  bash tools/fuzz.sh all 60
fi
