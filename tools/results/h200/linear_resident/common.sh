#!/usr/bin/env bash
# Sourced by call_a.sh and call_b.sh on the GPU machine, from the repository root: the shared prologue
# (device_env.sh), the machine's name into $R/gpu.txt, and run_lab: the W-resident FFMA lab built (ptxas report in
# $R/build.log) and run (checks, then timings into $R/lab.{log,csv}), its verdict and timing rows echoed.
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
run_lab() {
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. tests/kernels/linear_resident_lab.cu \
    -o /tmp/linear_resident_lab > $R/build.log 2>&1 || { tail -20 $R/build.log; }
  timeout 240 /tmp/linear_resident_lab --csv $R/lab.csv > $R/lab.log 2>&1
  echo "lab exit $?"; grep -E "FAIL|validation" $R/lab.log; grep -E "^rows" $R/lab.log | cut -c1-110
}
