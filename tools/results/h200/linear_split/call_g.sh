#!/usr/bin/env bash
# Seventh call (one H200): the split Linear by default from 320 rows (call_f: faster from batch 32 of the SSA,
# slower at batch 1's 10 rows): every GPU test, the Linear tests under memcheck, compare against the CPU in fp32 on
# both SSA exports at 32 and 4000 samples, the SSA's fp32 bench at 1 to 65536 and its per-op profile at 512.
# Results in r.tgz. Needs .device/build.tgz (tools/stage_device_build.sh).
source tools/results/h200/device_env.sh
timeout 300 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -10
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version -tc="cuda Linear*" \
  > $R/gpu_tests_linear_memcheck.log 2>&1
echo "memcheck (Linear) exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_linear_memcheck.log | tail -1)"
for form in legacy dynamo; do
  for b in 32 4000; do
    timeout 60 $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision fp32 --batch $b --seed 7 \
      > $R/compare_ssa_${form}_fp32_$b.log 2>&1
    echo "compare ssa $form fp32 batch $b exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_fp32_$b.log | head -1) $(grep -oE 'rel L2 [0-9.e+-]+' $R/compare_ssa_${form}_fp32_$b.log | tr '\n' ' ')"
  done
done
timeout 80 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 1,32,512,4096,65536 \
  --duration-ms 150 --json $R/bench_ssa_fp32.json > $R/bench_ssa_fp32.log 2>&1
echo "bench fp32 exit $?"; grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32.log | cut -c1-24
timeout 40 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 512 --profile \
  > $R/profile_ssa_512_cuda_fp32.txt 2>&1
echo "profile 512 exit $?: $(grep -E '^total' $R/profile_ssa_512_cuda_fp32.txt)"
cd $OUT && tar czf r.tgz r && rm -rf r
