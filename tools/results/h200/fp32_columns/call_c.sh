#!/usr/bin/env bash
# Third full call (one H200): the committed column kernel (weights re-laid per kernel column, staging by plain loads)
# through the engine. Every GPU test; the strict-fp32 configuration and NaN tests under memcheck, racecheck and
# synccheck; the lab's column and FFMA runs (validation on odd shapes, conv1 and conv2 at 10000; the column runs
# under the sanitizers at batches up to 7); compare against the CPU in fp32 and tf32 on both exports.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
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
  $L/fused_conv_lab --filter "cols|ffma" --batch 10000 > $R/fcl_fp32.log 2>&1
  echo "fused conv lab (ffma, cols) exit $?: $(grep -c '^PASS' $R/fcl_fp32.log) PASS, $(grep -c '^FAIL' $R/fcl_fp32.log) FAIL"
  grep -E "^(cols|ffma) .*conv[12] " $R/fcl_fp32.log | sort -u | cut -c1-150
  for tool in memcheck racecheck synccheck; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $L/fused_conv_lab --filter "cols" --check-only \
      --max-batch 7 > $R/fcl_cols_$tool.log 2>&1
    echo "$tool (lab cols) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/fcl_cols_$tool.log | tail -1)"
  done
  compare_forms convnet "fp32 tf32"
}
timeout 590 bash -c "$(declare -f work compare_forms); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_c.log
cd $OUT && tar czf r.tgz r && rm -rf r
