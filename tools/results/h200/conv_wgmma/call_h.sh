#!/usr/bin/env bash
# Eighth call: the engine with call_g's kernel, the wgmma configurations first in the heuristic's order (the lab's
# figures are call_g's): every GPU test, the wgmma and NaN tests under memcheck, racecheck and synccheck, the conv
# net's bench in bf16 and fp16 (batches 1 to 10000, the tuner's records: which kernel conv2 got per batch), the
# per-op profile at 10000 in bf16, compare against the CPU on both exports in bf16 and fp16.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  rm -f ~/.cache/inferengine/tuning-*.json
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
  for tool in memcheck racecheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
      -tc="*warpgroup-MMA*,*keeps NaN*" > $R/gpu_tests_wg_$tool.log 2>&1
    echo "$tool (wgmma and NaN tests) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|test cases' $R/gpu_tests_wg_$tool.log | tr '\n' ' ' | cut -c1-200)"
  done
  rm -f ~/.cache/inferengine/tuning-*.json
  bench_convnet_16bit 2
  grep -h '"fused_conv' ~/.cache/inferengine/tuning-*.json | grep -o '"shape":"[^"]*","value":{"config":"[a-z0-9_]*"' > $R/tuning_records.txt; cat $R/tuning_records.txt | cut -c1-160
  cp ~/.cache/inferengine/tuning-*.json $R/ 2>/dev/null
  $B/bench --config configs/convnet.yaml --paths cuda --precision bf16 --batches 10000 --profile > $R/profile_bf16_10000.txt 2>&1
  grep -E "conv[12]/Conv|^total" $R/profile_bf16_10000.txt | cut -c1-60,130-175
  compare_forms convnet "bf16 fp16"
}
timeout 590 bash -c "$(declare -f work compare_forms bench_convnet_16bit); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_h.log
cd $OUT && tar czf r.tgz r && rm -rf r
