#!/usr/bin/env bash
# Fifth call (one H200): the review mend (the register-pool epilogues in one loop, pool_store taking rows pooled
# already, pool_window with separate row and column windows). Every GPU test; the strict-fp32 configuration and NaN
# tests under memcheck, racecheck and synccheck; the whole fused conv lab's validation (every kernel family: the
# pool window is shared); the column runs timed at 10000; the conv net's fp32 bench at 10000.
source tools/results/h200/device_env.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | grep -v MESSAGE | head -40
  for tool in memcheck racecheck synccheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
      -tc="*strict-fp32 configuration*,*keeps NaN*" > $R/gpu_tests_fp32_$tool.log 2>&1
    echo "$tool (strict-fp32 and NaN tests) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|test cases' $R/gpu_tests_fp32_$tool.log | tr '\n' ' ' | cut -c1-200)"
  done
  $L/fused_conv_lab --check-only > $R/fcl_all.log 2>&1
  echo "fused conv lab (every run, validation) exit $?: $(grep -c '^PASS' $R/fcl_all.log) PASS, $(grep -c '^FAIL' $R/fcl_all.log) FAIL"
  $L/fused_conv_lab --filter "cols" --no-validate --batch 10000 > $R/fcl_cols.log 2>&1
  grep -E "^cols .*conv[12] " $R/fcl_cols.log | sort -u | cut -c1-150
  $B/bench --config configs/convnet.yaml --paths cuda --precision fp32 --batches 10000 --duration-ms 400 \
    > $R/bench_convnet_fp32.log 2>&1
  echo "bench fp32 exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_convnet_fp32.log | cut -c1-60
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_e.log
cd $OUT && tar czf r.tgz r && rm -rf r
