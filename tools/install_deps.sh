#!/usr/bin/env bash
# Installs the Debian packages the engine builds and tests with. Safe to run again.
set -euo pipefail
packages=(
  cmake g++ make pkg-config
  libeigen3-dev doctest-dev libyaml-cpp-dev
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  dataset-fashion-mnist gnuplot-nox python3-numpy
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
echo "dependencies installed"
