#!/usr/bin/env bash
# Cross-builds the engine's CPU backend for 64-bit Arm (aarch64: Eigen's NEON kernels, the portable C++ paths where
# the x86 build has AVX2/AVX-512 ones) and runs its unit, model and ONNX node tests under qemu-user.
#
#   bash tools/cross/arm64_build.sh [BUILD_DIR]      # default build-arm64/
#
# Installs Debian's cross compiler and qemu-user (apt), downloads the Arm builds of the engine's libraries
# (protobuf, onnx, yaml-cpp, fmt, zlib) and unpacks them into .arm64-sysroot/ without installing them: their -dev
# packages cannot sit beside the x86-64 ones. Slow under emulation: the tests take minutes, not seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-arm64}
sysroot=${IE_ARM64_SYSROOT:-$PWD/.arm64-sysroot}
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"

missing=()
for p in g++-aarch64-linux-gnu qemu-user; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
  missing+=(apt-update)
fi
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update
  pkgs=("${missing[@]/apt-update/}")
  [ -n "${pkgs[*]// /}" ] && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends ${pkgs[@]}
fi

if [[ ! -f $sysroot/.complete ]]; then
  mkdir -p "$sysroot/debs"
  (cd "$sysroot/debs" && apt-get download libprotobuf-dev:arm64 libprotobuf32:arm64 libprotobuf-lite32:arm64 \
    libonnx-dev:arm64 libonnx1:arm64 libonnxifi:arm64 libyaml-cpp-dev:arm64 libyaml-cpp0.7:arm64 \
    libfmt-dev:arm64 libfmt9:arm64 zlib1g-dev:arm64 zlib1g:arm64)
  for d in "$sysroot"/debs/*.deb; do dpkg -x "$d" "$sysroot"; done
  # Absolute symlinks (libz.so -> /lib/...) point at the host: re-point them inside the sysroot.
  find "$sysroot" -type l -lname '/*' | while read -r link; do
    ln -sfn "$sysroot$(readlink "$link")" "$link"
  done
  cp -n "$sysroot"/lib/aarch64-linux-gnu/* "$sysroot/usr/lib/aarch64-linux-gnu/" 2>/dev/null || true
  touch "$sysroot/.complete"
fi

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=tools/cross/aarch64.cmake \
  -DIE_ARM64_SYSROOT="$sysroot" -DIE_WITH_CUDA=OFF
cmake --build "$build" -j"$(nproc)" --target unit_tests model_tests onnx_node_tests infer

# The tests under emulation: the Arm C library from the cross toolchain, the Arm libraries from the sysroot.
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
export LD_LIBRARY_PATH="$sysroot/usr/lib/aarch64-linux-gnu:$PWD/$build/lib"
file -L "$build/lib/libinferengine.so" | grep -q "ARM aarch64" || { echo "error: $build is not an aarch64 build" >&2; exit 1; }
# Left out: the fork test. qemu-user (7.2) aborts on its own assertion (qemu_plugin_vcpu_init_hook) when a forked
# child of a multi-threaded guest starts a thread, which is what that test checks.
(cd "$build" && qemu-aarch64 bin/unit_tests --no-version --test-case-exclude="*forked child*")
(cd "$build" && qemu-aarch64 bin/model_tests --no-version)
(cd "$build" && qemu-aarch64 bin/onnx_node_tests)
echo "arm64 build and tests: OK"
