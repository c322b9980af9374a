#!/usr/bin/env bash
# Third call: the engine with the MMA head (every head of hidden size up to 64 at every batch) and the column
# kernel's kept epilogue (the staged build carried as .device/build.tgz): every GPU test, the head tests and the
# strict-fp32 and NaN tests under memcheck, racecheck and synccheck, the conv net's bench in bf16 and fp16 with the
# head against the per-step path (IE_DISABLE_FUSIONS=sample_resident) in the same call, the per-op profiles at
# 10000 in bf16 and fp32 (the tuner's fp32 records), compare against the CPU on both exports in bf16, fp16, fp32.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  rm -f ~/.cache/inferengine/tuning-*.json
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
  for tool in memcheck racecheck synccheck; do
    for t in "heads:*classifier heads*,*head kernels decline*" "fp32:*strict-fp32 configuration*,*keeps NaN*"; do
      timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version -tc="${t#*:}" \
        > $R/gpu_tests_${t%%:*}_$tool.log 2>&1
      echo "$tool (${t%%:*}) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|test cases' $R/gpu_tests_${t%%:*}_$tool.log | tr '\n' ' ' | cut -c1-200)"
    done
  done
  rm -f ~/.cache/inferengine/tuning-*.json
  for p in bf16 fp16; do
    for path in head perstep; do
      if [[ $path == perstep ]]; then export IE_DISABLE_FUSIONS=sample_resident; else unset IE_DISABLE_FUSIONS; fi
      $B/bench --config configs/convnet.yaml --paths cuda --precision $p --batches 1,16,128,1000,10000,50000 \
        --duration-ms 300 > $R/bench_${path}_${p}.log 2>&1
      echo "bench $path $p exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_${path}_${p}.log | cut -c1-40
    done
  done
  unset IE_DISABLE_FUSIONS
  for p in bf16 fp32; do
    $B/bench --config configs/convnet.yaml --paths cuda --precision $p --batches 10000 --profile > $R/profile_${p}_10000.txt 2>&1
    grep -E "^[0-9] |^total" $R/profile_${p}_10000.txt | cut -c1-60,130-175
  done
  grep -h '"fused_conv' ~/.cache/inferengine/tuning-*.json | grep -o '"shape":"[^"]*float32","value":{"config":"[a-z0-9_]*"' > $R/tuning_fp32.txt; cat $R/tuning_fp32.txt
  compare_forms convnet "bf16 fp16 fp32"
}
timeout 590 bash -c "$(declare -f work compare_forms); B=$B R=$R D=$D; work" 2>&1 | tee $R/call_c.log
cd $OUT && tar czf r.tgz r && rm -rf r
