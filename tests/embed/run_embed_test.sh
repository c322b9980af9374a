#!/usr/bin/env bash
# Installs the engine from BUILD_DIR into a temporary prefix, builds tests/embed against it with find_package,
# and runs it on MODEL.
set -euo pipefail
build_dir=$1 source_dir=$2 model=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source_dir/tests/embed" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
"$work/build/embed_example" "$model"
