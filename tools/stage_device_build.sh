#!/usr/bin/env bash
# Copies a CUDA build's binaries and libraries into .device/build (git-ignored), together with the Debian-only
# shared libraries the GPU machine lacks (protobuf, onnx_proto, yaml-cpp, fmt), so that the folder can
# travel to a GPU machine with `carry: [".device"]` and run there through the $ORIGIN/../lib rpath.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
stage=.device/build
[[ -x $build/bin/gpu_tests ]] || { echo "no CUDA build in $build (configure with nvcc present)"; exit 2; }
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib"
cp -a "$build"/bin/* "$stage/bin/"
cp -a "$build"/lib/libinferengine.so* "$stage/lib/"
for lib in $(ldd "$build/lib/libinferengine.so" "$build"/bin/* 2>/dev/null |
             awk '/=> \// {print $3}' | grep -E 'libonnx|libprotobuf|libyaml-cpp|libfmt' | sort -u); do
  cp -L "$lib" "$stage/lib/"
done
# The Python package when the build has one (IE_PYTHON_MODULE): its .py files are links into the sources here.
if [[ -d $build/python/inferengine ]]; then
  cp -rL "$build/python" "$stage/python"
  strip --strip-unneeded "$stage"/python/inferengine/*.so 2>/dev/null || true
fi
strip --strip-unneeded "$stage"/lib/*.so* "$stage"/bin/* 2>/dev/null || true
du -sh "$stage"
