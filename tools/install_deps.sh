#!/usr/bin/env bash
# Installs the Debian packages the engine builds and tests with (clang, its sanitizer runtimes and libFuzzer for the
# sanitized builds and fuzzers of tools/sanitize.sh and tools/fuzz.sh). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(
  cmake g++ make pkg-config
  libeigen3-dev doctest-dev libyaml-cpp-dev
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  dataset-fashion-mnist gnuplot-nox python3-numpy python3 python3-venv python3-dev
  clang libclang-rt-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
# The scripts and tests run the interpreter tools/python_env.sh names; prove it has what they import.
source tools/python_env.sh
"$IE_PYTHON" -c "import json, numpy" || { echo "error: $IE_PYTHON cannot import numpy after the install" >&2; exit 1; }
# The Python package's virtual environment (pinned PyPI packages; pip runs only when something is missing).
bash tools/python_venv.sh
echo "dependencies installed"
