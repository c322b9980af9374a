#!/usr/bin/env bash
# The engine with float32 projections joined into ie.Attention (one cuBLASLt product for q | k | v, then the
# attention kernel reading them 3E apart) and the MMA head taking heads too wide for the CUDA-core head's tile
# (the staged build carried as .device/build.tgz): every GPU test; the attention and head tests under memcheck,
# racecheck and synccheck; the SSA's bench in fp32 and tf32 with the joined projections against the three products
# (IE_DISABLE_FUSIONS=attention_projection) in the same call, two rounds alternating; the per-op profile at 65536
# in fp32; compare against the CPU on both exports in fp32 and tf32.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
  for round in 1 2; do
    for path in joined apart; do
      if [[ $path == apart ]]; then export IE_DISABLE_FUSIONS=attention_projection; else unset IE_DISABLE_FUSIONS; fi
      for p in fp32 tf32; do
        $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,32,512,4096,65536 \
          --duration-ms 300 > $R/bench_${path}_${p}_$round.log 2>&1
        echo "bench $path $p round $round exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_${path}_${p}_$round.log | cut -c1-40
      done
    done
  done
  unset IE_DISABLE_FUSIONS
  $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 65536 --profile > $R/profile_fp32_65536.txt 2>&1
  grep -E "^[0-9]+ |^total" $R/profile_fp32_65536.txt | cut -c1-60,130-175
  compare_forms ssa "fp32 tf32"
  for tool in memcheck racecheck synccheck; do
    t="*Attention with its projections*,*too wide for the CUDA-core*"
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version -tc="$t" \
      > $R/gpu_tests_$tool.log 2>&1
    echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|test cases' $R/gpu_tests_$tool.log | tr '\n' ' ' | cut -c1-200)"
  done
}
timeout 590 bash -c "$(declare -f work compare_forms); B=$B R=$R D=$D; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
