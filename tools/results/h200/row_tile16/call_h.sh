#!/usr/bin/env bash
# Session call 8 (one GPU), the final build: the shape figures measured after the overlapped start (call_g),
# the kernel's start with the floats and first weights in flight together; bench of the SSA in bf16 and fp16, two
# rounds; the GPU tests, the sample-resident tests under memcheck, racecheck and synccheck; compare against the CPU.
source tools/results/h200/device_env.sh
work() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for round in 1 2; do
  for v in new; do
    for p in bf16 fp16; do
      $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,7,16,32,128,512,1000,4096,65536 \
        --duration-ms 400 > $R/bench_${v}_${p}_$round.log 2>&1
      echo "bench $v $p round $round exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_${v}_${p}_$round.log | cut -c1-40
    done
  done
done
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version -tc='GPU: the SSA runs as one sample-resident*' \
    > $R/gpu_tests_sr_$tool.log 2>&1
  echo "$tool (sample-resident tests) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/gpu_tests_sr_$tool.log | tail -1)"
done
for form in legacy dynamo; do
  for p in bf16 fp16; do
    for seed in 7 8; do
      $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision $p --seed $seed \
        > $R/compare_ssa_${form}_${p}_$seed.log 2>&1
      echo "compare ssa $form $p seed $seed exit $?: $(grep -E 'PASS|FAIL|smallest passing atol' $R/compare_ssa_${form}_${p}_$seed.log | tr -s ' ' | tr '\n' ' ' | cut -c1-300)"
    done
  done
done
}
timeout 560 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call_h.log
cd $OUT && tar czf r.tgz r && rm -rf r
