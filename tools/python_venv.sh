#!/usr/bin/env bash
# Makes the Python package's virtual environment (.venv-py, from Debian's python3 -m venv) with the pinned PyPI
# packages of engine/python/requirements.txt: the module's build (nanobind, scikit-build-core) and its tests (numpy,
# pytest, ray[data]). Safe to run again: pip runs only when the venv is missing or the pins changed since it last
# succeeded. Nothing here downloads at run time; tests and tools only import what this installed.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/python_env.sh
requirements=engine/python/requirements.txt
stamp="$IE_VENV/.requirements.sha256"
want=$(sha256sum "$requirements" | cut -d' ' -f1)
if [[ -x $IE_VENV/bin/python && -f $stamp && $(cat "$stamp") == "$want" ]]; then
  exit 0
fi
[[ -x $IE_VENV/bin/python ]] || /usr/bin/python3 -m venv "$IE_VENV"
"$IE_VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
echo "$want" > "$stamp"
echo "python environment ready: $IE_VENV"
