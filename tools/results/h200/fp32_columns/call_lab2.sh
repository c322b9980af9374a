#!/usr/bin/env bash
# Lab-only call (one H200): the column kernel with its weights re-laid per kernel column in shared memory, float4
# staging stores and the 5-warp configuration: validation and conv1/conv2 at batch 10000 (FFMA and column runs),
# and ncu's per-instruction view (source page, SASS) of conv1 (cols_r8_w5) and conv2 (cols_r16_w8).
source tools/results/h200/device_env.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $L/fused_conv_lab --filter "cols|ffma" --batch 10000 > $R/fcl_fp32.log 2>&1
  echo "fused conv lab (ffma, cols) exit $?: $(grep -c '^PASS' $R/fcl_fp32.log) PASS, $(grep -c '^FAIL' $R/fcl_fp32.log) FAIL"
  grep '^FAIL' $R/fcl_fp32.log | cut -c1-200 | head -8
  grep -E "^cols .*conv[12] " $R/fcl_fp32.log | sort -u | cut -c1-150
  for run in "cols_r8_w5 3" "cols_r16_w8 58"; do
    set -- $run
    timeout 100 ncu --clock-control none -k regex:columns --launch-skip $2 --launch-count 1 --section SourceCounters \
      --section WarpStateStats --section Occupancy --page source --print-source sass --csv \
      $L/fused_conv_lab --filter "$1" --no-validate --batch 10000 > $R/ncu_source_$1.csv 2>&1
    echo "ncu source $1 exit $?: $(wc -l < $R/ncu_source_$1.csv) lines"
  done
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R L=$L; work" 2>&1 | tee $R/call_lab2.log
cd $OUT && tar czf r.tgz r && rm -rf r
