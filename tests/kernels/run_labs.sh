#!/usr/bin/env bash
# Builds every tests/kernels/*_lab.cu (in parallel) and runs each in turn, writing <lab>.build.log (with the ptxas
# register/spill report), <lab>.log and <lab>.csv into OUT_DIR. Binaries go to build/labs/, not OUT_DIR.
# Usage, from the repository root:  tests/kernels/run_labs.sh OUT_DIR [arguments for every lab, e.g. --check-only]
#   LABS="fused_conv_lab resize_lab": only these labs (default: every one)
#   LAB_BIN=DIR: run the binaries already built in DIR (same flags; e.g. built elsewhere, where nvcc's minutes do not
#     count against a GPU's time) instead of building them, with DIR/NAME.build.log as the ptxas report where it is
#     there; a lab missing in DIR is an error
#   LAB_BUILD_ONLY=1: build the labs (into build/labs, each with its ptxas report beside it) and stop
#   LAB_TIMEOUT=SECONDS: stop a lab that runs longer (it counts as failed), so one stuck lab leaves the others time
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
bin=${LAB_BIN:-build/labs}
mkdir -p "$out" "$bin"

if [ -n "${LABS:-}" ]; then
  labs=()
  for name in $LABS; do labs+=("tests/kernels/$name.cu"); done
else
  labs=(tests/kernels/*_lab.cu)
fi
for src in "${labs[@]}"; do
  if [ ! -e "$src" ]; then
    echo "no lab $src: run from the repository root, with names of tests/kernels/*_lab.cu in LABS" >&2
    exit 2
  fi
done

declare -A pids
for src in "${labs[@]}"; do
  name=$(basename "$src" .cu)
  if [ -n "${LAB_BIN:-}" ]; then
    # Its build's ptxas report, where it was kept beside it as NAME.build.log, stands for this run's.
    if [ ! -x "$bin/$name" ]; then echo "no executable $bin/$name (LAB_BIN)" >"$out/$name.build.log"
    elif [ -f "$bin/$name.build.log" ]; then cp "$bin/$name.build.log" "$out/$name.build.log"
    else echo "prebuilt: $bin/$name" >"$out/$name.build.log"; fi
    continue
  fi
  # A lab that also needs host sources of the engine names them in a "// lab-sources: a.cpp b.cpp" line.
  extra=$(sed -n 's|^// lab-sources: ||p' "$src")
  "$nvcc" "${flags[@]}" "$src" $extra -o "$bin/$name" >"$out/$name.build.log" 2>&1 &
  pids[$name]=$!
done

status=0
linebuf=
command -v stdbuf >/dev/null && linebuf="stdbuf -oL"
limit=
[ -n "${LAB_TIMEOUT:-}" ] && limit="timeout ${LAB_TIMEOUT}"
for src in "${labs[@]}"; do
  name=$(basename "$src" .cu)
  built=0
  if [ -n "${LAB_BIN:-}" ]; then [ -x "$bin/$name" ] && built=1; else wait "${pids[$name]}" && built=1; fi
  if [ $built -eq 0 ]; then
    echo "BUILD FAILED: $name (see $out/$name.build.log)"
    tail -n 20 "$out/$name.build.log"
    status=1
    continue
  fi
  if [ -n "${LAB_BUILD_ONLY:-}" ]; then  # the report travels with the binary (LAB_BIN copies it back)
    cp "$out/$name.build.log" "$bin/$name.build.log"
    continue
  fi
  grep -q "spill stores" "$out/$name.build.log" && grep "spill" "$out/$name.build.log" | grep -v " 0 bytes spill stores, 0 bytes spill loads" | sed "s/^/$name: SPILLS: /"
  echo "== $name $*"
  started=$(date +%s)
  # Line-buffered: a lab cut by a time limit keeps what it printed (through the pipe stdio buffers whole blocks).
  $limit $linebuf "$bin/$name" --csv "$out/$name.csv" "$@" 2>&1 | tee "$out/$name.log"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 124 ] && echo "TIMED OUT: $name ran past LAB_TIMEOUT=${LAB_TIMEOUT} s"
  echo "== $name ran $(( $(date +%s) - started )) s"
  if [ "$rc" -ne 0 ]; then
    echo "FAILED: $name exited with $rc"
    status=1
  fi
done
exit $status
