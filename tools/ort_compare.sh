#!/usr/bin/env bash
# The CPU backend beside onnxruntime on the same cores, same models, same batches (issue: the CPU backend ahead of
# onnxruntime). onnxruntime comes from PyPI into a virtual environment made here (measurement only; needs the
# network the first time); the engine's side is `bench --paths cpu` of an existing build.
#
#   bash tools/ort_compare.sh [THREADS] [BUILD_DIR]      # default: all cores, build/
#   ORT_VENV=/path/venv WORKLOADS="convnet:1000 ssa:512" bash tools/ort_compare.sh 2
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${1:-$(nproc)}
build=${2:-build}
venv=${ORT_VENV:-.venv-ort}
workloads=${WORKLOADS:-"convnet:1 convnet:1000 convnet:10000 ssa:1 ssa:512 ssa:65536"}
ms=${BENCH_MS:-3000}
if [[ ! -x $venv/bin/python ]]; then
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet onnxruntime numpy
fi
printf "%-8s %7s %7s | %12s %12s | %s\n" model batch threads "engine ms" "ort ms" "engine speed / ort"
for w in $workloads; do
  model=${w%%:*}
  batch=${w##*:}
  json=$(mktemp)
  "$build/bin/bench" --config "configs/$model.yaml" --paths cpu --threads "$threads" --batches "$batch" \
    --duration-ms "$ms" --json "$json" > /dev/null
  engine=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['compute_only']['p50_ms'])" "$json")
  rm -f "$json"
  ort=$("$venv/bin/python" tools/ort_bench.py --model "weights/$model.onnx" --batch "$batch" --threads "$threads" \
    --ms "$ms" | "$venv/bin/python" -c "import json,sys; print(json.load(sys.stdin)['p50_ms'])")
  /usr/bin/python3 -c "import sys; e, o = float(sys.argv[1]), float(sys.argv[2]); print(f'%-8s %7s %7s | %12.3f %12.3f | %.2fx' % (sys.argv[3], sys.argv[4], sys.argv[5], e, o, o / e))" \
    "$engine" "$ort" "$model" "$batch" "$threads"
done
