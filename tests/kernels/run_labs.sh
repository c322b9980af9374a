#!/usr/bin/env bash
# Builds every tests/kernels/*_lab.cu (in parallel) and runs each in turn, writing <lab>.build.log (with the ptxas
# register/spill report), <lab>.log and <lab>.csv into OUT_DIR. Binaries go to build/labs/, not OUT_DIR.
# Usage, from the repository root:  tests/kernels/run_labs.sh OUT_DIR [arguments for every lab, e.g. --check-only]
# Exit status: non-zero if any lab failed to build or run (a lab exits non-zero on a failed check).
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 OUT_DIR [lab arguments...]" >&2
  exit 2
fi
out=$1
shift
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
flags=(-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I.)
bin=build/labs
mkdir -p "$out" "$bin"

labs=(tests/kernels/*_lab.cu)
if [ ! -e "${labs[0]}" ]; then
  echo "no tests/kernels/*_lab.cu here: run from the repository root" >&2
  exit 2
fi

declare -A pids
for src in "${labs[@]}"; do
  name=$(basename "$src" .cu)
  # A lab that also needs host sources of the engine names them in a "// lab-sources: a.cpp b.cpp" line.
  extra=$(sed -n 's|^// lab-sources: ||p' "$src")
  "$nvcc" "${flags[@]}" "$src" $extra -o "$bin/$name" >"$out/$name.build.log" 2>&1 &
  pids[$name]=$!
done

status=0
for src in "${labs[@]}"; do
  name=$(basename "$src" .cu)
  if ! wait "${pids[$name]}"; then
    echo "BUILD FAILED: $name (see $out/$name.build.log)"
    tail -n 20 "$out/$name.build.log"
    status=1
    continue
  fi
  grep -q "spill stores" "$out/$name.build.log" && grep "spill" "$out/$name.build.log" | grep -v " 0 bytes spill stores, 0 bytes spill loads" | sed "s/^/$name: SPILLS: /"
  echo "== $name $*"
  "$bin/$name" --csv "$out/$name.csv" "$@" 2>&1 | tee "$out/$name.log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then
    echo "FAILED: $name exited with $rc"
    status=1
  fi
done
exit $status
