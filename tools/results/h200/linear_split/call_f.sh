#!/usr/bin/env bash
# Sixth call (one H200): the split Linear in the engine (strict fp32, from 32768 rows): the Linear GPU tests (the
# split kernel's new test under memcheck too), every GPU test, compare against the CPU in fp32 on both SSA exports at
# 4000 samples (40,000 rows: the split kernel) and 7; the SSA's fp32 bench with the split kernel by default, at every
# row count (IE_LINEAR_FP32=split) and without it (=nosplit), two rounds; the per-op profile at 65536 and 4096.
# Needs .device/build.tgz (tools/stage_device_build.sh).
source tools/results/h200/device_env.sh
timeout 120 $B/gpu_tests --no-version -tc="cuda Linear*" > $R/gpu_tests_linear.log 2>&1
echo "gpu_tests (Linear) exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests_linear.log | tr '\n' ' ')"
grep -E "ERROR|FAILED|REQUIRE|CHECK" $R/gpu_tests_linear.log | head -10
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version \
  -tc="cuda Linear in strict fp32: the split*" > $R/gpu_tests_split_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_split_memcheck.log | tail -1)"
for form in legacy dynamo; do
  for b in 4000 7; do
    timeout 60 $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision fp32 --batch $b --seed 7 \
      > $R/compare_ssa_${form}_fp32_$b.log 2>&1
    echo "compare ssa $form fp32 batch $b exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_fp32_$b.log | head -1) $(grep -iE 'rel' $R/compare_ssa_${form}_fp32_$b.log | head -2 | tr '\n' ' ')"
  done
done
for round in 1 2; do
  for c in default split nosplit; do
    env_c=$c; [[ $c == default ]] && env_c=
    IE_LINEAR_FP32=$env_c timeout 80 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 \
      --batches 1,32,512,4096,65536 --duration-ms 150 --json $R/bench_ssa_fp32_${c}_$round.json \
      > $R/bench_ssa_fp32_${c}_$round.log 2>&1
    echo "bench fp32 $c round $round exit $?"; grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32_${c}_$round.log | cut -c1-24
  done
done
for b in 4096 65536; do
  timeout 40 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches $b --profile \
    > $R/profile_ssa_${b}_cuda_fp32.txt 2>&1
  echo "profile $b exit $?: $(grep -E '^total' $R/profile_ssa_${b}_cuda_fp32.txt)"
  grep -E "ie.Linear" $R/profile_ssa_${b}_cuda_fp32.txt | cut -c1-60,150-175
done
timeout 300 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -10
