#!/usr/bin/env bash
# Configures and builds into build/ (Release). Extra arguments go to CMake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# The Python module (and its tests) when tools/install_deps.sh has made the package's virtual environment.
source tools/python_env.sh
python_module=()
[[ -x $IE_VENV/bin/python ]] && python_module=(-DIE_PYTHON_MODULE=ON "-DPython_EXECUTABLE=$IE_VENV/bin/python")
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${python_module[@]}" "$@"
cmake --build build -j"$jobs"
