#!/usr/bin/env bash
# Ninth call (one H200): in strict fp32 from 32768 rows the projected attention declines (its node unfuses: three
# split-operand Linears and the attention kernel): every GPU test, the attention and Linear tests under memcheck,
# compare against the CPU in fp32 on both SSA exports at 4000 samples, the plan at 4096, the SSA's fp32 bench at 1 to
# 65536 and its per-op profile at 65536. Results in r.tgz. Needs .device/build.tgz (tools/stage_device_build.sh).
source tools/results/h200/device_env.sh
timeout 300 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -10
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version \
  -tc="cuda Linear*,*attention*,*Attention*" > $R/gpu_tests_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_memcheck.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/gpu_tests_memcheck.log)"
for form in legacy dynamo; do
  timeout 60 $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision fp32 --batch 4000 --seed 7 \
    > $R/compare_ssa_${form}_fp32_4000.log 2>&1
  echo "compare ssa $form fp32 4000 exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_fp32_4000.log | head -1) $(grep -oE 'rel L2 [0-9.e+-]+' $R/compare_ssa_${form}_fp32_4000.log | tr '\n' ' ')"
done
$B/inspect weights/ssa.onnx --batch 4096 --backend cuda --precision fp32 > $R/inspect_ssa_fp32_4096.txt 2>&1
echo "inspect exit $?: $(grep -E 'steps on' $R/inspect_ssa_fp32_4096.txt)"
timeout 80 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 1,32,512,4096,65536 \
  --duration-ms 150 --json $R/bench_ssa_fp32.json > $R/bench_ssa_fp32.log 2>&1
echo "bench fp32 exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
timeout 40 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 65536 --profile \
  > $R/profile_ssa_65536_cuda_fp32.txt 2>&1
echo "profile 65536 exit $?: $(grep -E '^total' $R/profile_ssa_65536_cuda_fp32.txt)"
cd $OUT && tar czf r.tgz r && rm -rf r
