#!/usr/bin/env bash
# Sourced by call_a.sh .. call_g.sh on the GPU machine, from the repository root: the shared prologue
# (device_env.sh), build_lab OUTPUT [NVCC FLAGS...] (the row-FFMA lab with -lineinfo and the ptxas report in
# $R/build*.log), alternate V1 V2 (the timings of /tmp/lab_V1 and /tmp/lab_V2, two rounds alternating, into
# $R/time_V_ROUND.{csv,log}) and STALLS, the ncu metrics of each stall reason per issued instruction.
source tools/results/h200/device_env.sh
build_lab() {
  local out=$1
  shift
  /usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. "$@" \
    tests/kernels/row_ffma_lab.cu layers/sample_resident/row_tile_builder.cpp layers/sample_resident/row_ffma_builder.cpp \
    layers/sample_resident/sample_resident_builder.cpp -o "$out"
}
alternate() {
  for round in 1 2; do
    for v in "$@"; do
      echo "== $v, round $round"
      timeout 60 /tmp/lab_$v --no-validate --csv "$R/time_${v}_$round.csv" | grep row_ffma | tee "$R/time_${v}_$round.log"
    done
  done
}
STALLS=""
for r in barrier short_scoreboard long_scoreboard math_pipe_throttle mio_throttle wait not_selected selected \
  dispatch_stall lg_throttle no_instruction branch_resolving membar sleeping drain tex_throttle imc_miss misc; do
  STALLS="$STALLS,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
done
STALLS=${STALLS:1}
