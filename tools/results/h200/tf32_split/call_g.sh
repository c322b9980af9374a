#!/usr/bin/env bash
# Seventh call (one H200): tf32 mode's split products on the shared-rows plans too (conv2). Every GPU test; the
# fused conv lab's tf32 runs (validation: the split runs held to the unrounded operands; timings of conv1 and
# conv2 at 10000 and 1000: split shared rows against the pixels-on-M tf32 kernel); the split tests under the
# sanitizers; compare against the CPU in tf32; the conv net's tf32 bench and profile at 10000; the tuner's records.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | grep -v MESSAGE | head -40
  $L/fused_conv_lab --filter "tf32" --max-batch 1000 > $R/fcl_tf32.log 2>&1
  echo "fused conv lab (tf32 runs) exit $?: $(grep -c '^PASS' $R/fcl_tf32.log) PASS, $(grep -c '^FAIL' $R/fcl_tf32.log) FAIL"
  grep '^FAIL' $R/fcl_tf32.log | cut -c1-200 | head -8; grep "shr_tf32x3" $R/fcl_tf32.log | grep PASS | cut -c1-170 | head -4
  grep -iE "conv2|conv1" $R/fcl_tf32.log | grep -E "ms" | cut -c1-150 | head -40
  for tool in memcheck racecheck synccheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
      -tc="*split products*" > $R/gpu_tests_split_$tool.log 2>&1
    echo "$tool (split tests) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/gpu_tests_split_$tool.log | tail -1)"
  done
  compare_forms convnet "tf32"
  grep -h "rel" $R/compare_convnet_*_tf32.log | head -4
  $B/bench --config configs/convnet.yaml --paths cuda --precision tf32 --batches 1,128,1000,10000,50000 --duration-ms 400 \
    > $R/bench_convnet_tf32.log 2>&1
  echo "bench tf32 exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_convnet_tf32.log | cut -c1-60
  $B/bench --config configs/convnet.yaml --paths cuda --precision tf32 --batches 10000 --profile \
    > $R/profile_convnet_10000_tf32.txt 2>&1
  echo "profile exit $?"; grep -E "^[0-9] |total" $R/profile_convnet_10000_tf32.txt | cut -c1-30,150-200
  grep -h '"fused_conv' ~/.cache/inferengine/tuning-*.json | grep -o '"shape":"[^"]*","value":{[^}]*}' > $R/tuning_records.txt
  grep "4,40,40/16,7/0/4,4/float32" $R/tuning_records.txt | cut -c1-260 | head -8
}
timeout 590 bash -c "$(declare -f work compare_forms); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_g.log
cd $OUT && tar czf r.tgz r && rm -rf r
