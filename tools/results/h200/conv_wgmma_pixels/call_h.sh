#!/usr/bin/env bash
# Eighth call: the lab built here from the working tree after the weight packers' shared helper (put_b_sw128), its
# wgmma pixels-on-M and column-shifts checks on every lab shape.
source tools/results/h200/device_env.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I. tests/kernels/fused_conv_lab.cu -o /tmp/lab_h
  echo "build exit $?"
  /tmp/lab_h --filter "wgpx_|wgsh_" --check-only > $R/check.log 2>&1
  echo "lab check exit $?: $(grep -c '^PASS' $R/check.log) PASS, $(grep -c '^FAIL' $R/check.log) FAIL"
}
timeout 560 bash -c "$(declare -f work); R=$R; work" 2>&1 | tee $R/call_h.log
cd $OUT && tar czf r.tgz r && rm -rf r
