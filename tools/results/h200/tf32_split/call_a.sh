#!/usr/bin/env bash
# First call (one GPU): the build with tf32 mode's split products on the pool-on-M kernel (fc::WordBf16x3): every GPU
# test, the pool-on-M lab's checks (split words beside bf16/fp16) and timings (conv1 in tf32: split against the FFMA
# kernels the engine ran before), the lab's small checks and the split GPU tests under the sanitizers, compare
# against the CPU in tf32 (both exports), the conv net's tf32 bench with the per-op profile at 10000, and the tuner's
# records (which conv1 configuration tf32 mode keeps).
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | grep -v MESSAGE | head -40
  POOLM_MAX_BATCH=1000 $L/conv_poolm_lab --check-only > $R/poolm_check.log 2>&1
  echo "poolm lab checks exit $?: $(grep -c '^PASS' $R/poolm_check.log) PASS, $(grep -c FAIL $R/poolm_check.log) FAIL"
  grep FAIL $R/poolm_check.log | head -10; grep bf16x3 $R/poolm_check.log | grep "86x86" | cut -c1-150 | head -8
  $L/conv_poolm_lab --no-validate --csv $R/poolm_time.csv > $R/poolm_time.log 2>&1
  echo "poolm lab timings exit $?"; grep -E "ffma|bf16x3|w8_n5_bulk f32" $R/poolm_time.log
  POOLM_MAX_BATCH=7 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $L/conv_poolm_lab --check-only \
    > $R/poolm_memcheck.log 2>&1
  echo "poolm lab memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/poolm_memcheck.log | tail -1)"
  for tool in memcheck racecheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
      -tc="*split products*" > $R/gpu_tests_split_$tool.log 2>&1
    echo "$tool (split tests) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/gpu_tests_split_$tool.log | tail -1)"
  done
  compare_forms convnet "tf32"
  grep -h "rel" $R/compare_convnet_*_tf32.log | head -4
  $B/bench --config configs/convnet.yaml --paths cuda --precision tf32 --batches 1,128,1000,10000 --duration-ms 400 \
    > $R/bench_convnet_tf32.log 2>&1
  echo "bench tf32 exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_convnet_tf32.log | cut -c1-60
  $B/bench --config configs/convnet.yaml --paths cuda --precision tf32 --batches 10000 --profile \
    > $R/profile_convnet_10000_tf32.txt 2>&1
  echo "profile exit $?"; grep -E "^[0-9] |total" $R/profile_convnet_10000_tf32.txt | cut -c1-190
  grep -h '"fused_conv' ~/.cache/inferengine/tuning-*.json | grep -o '"shape":"[^"]*","value":{[^}]*}' > $R/tuning_records.txt
  grep -i "tf32\|/1/" $R/tuning_records.txt | cut -c1-300 | head -12
}
timeout 590 bash -c "$(declare -f work compare_forms); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
