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
