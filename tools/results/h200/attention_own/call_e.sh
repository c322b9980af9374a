#!/usr/bin/env bash
# Fifth call (one H200), the staged build with tf32 taking the split sequence (float32-exact) from 128 samples:
# every GPU test, the strict-fp32 / tf32 SSA test under memcheck, compare against the CPU in tf32 on both exports,
# the SSA bench in tf32 with the sequence and per step (IE_DISABLE_FUSIONS) and in fp32, in one call.
source tools/results/h200/device_env.sh
timeout 300 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -20
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version \
  -tc="GPU: in strict fp32*" > $R/gpu_tests_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_memcheck.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/gpu_tests_memcheck.log)"
for form in legacy dynamo; do
  for batch in 7 128 10001 40000; do
    timeout 60 $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision tf32 --batch $batch \
      --seed 13 > $R/compare_ssa_${form}_tf32_$batch.log 2>&1
    echo "compare $form tf32 $batch exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_tf32_$batch.log | head -1) $(grep -oE 'rel L2 [0-9.e+-]+' $R/compare_ssa_${form}_tf32_$batch.log | tr '\n' ' ')"
  done
done
$B/inspect weights/ssa.onnx --batch 4096 --backend cuda --precision tf32 > $R/inspect_ssa_tf32_4096.txt 2>&1
echo "inspect exit $?: $(grep -E 'steps on' $R/inspect_ssa_tf32_4096.txt)"
batches=1,32,64,128,256,512,4096,16384,65536
for mode in tf32 fp32; do
  timeout 100 $B/bench --config configs/ssa.yaml --paths cuda --precision $mode --batches $batches \
    --duration-ms 150 --json $R/bench_ssa_$mode.json > $R/bench_ssa_$mode.log 2>&1
  echo "bench $mode exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_$mode.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
done
IE_DISABLE_FUSIONS=sample_resident timeout 100 $B/bench --config configs/ssa.yaml --paths cuda --precision tf32 \
  --batches $batches --duration-ms 150 --json $R/bench_ssa_tf32_per_step.json > $R/bench_ssa_tf32_per_step.log 2>&1
echo "bench tf32 per step exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_tf32_per_step.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
IE_LINEAR_FP32=split timeout 100 $B/bench --config configs/ssa.yaml --paths cuda --precision tf32 \
  --batches 1,32,64,128 --duration-ms 150 --json $R/bench_ssa_tf32_forced.json > $R/bench_ssa_tf32_forced.log 2>&1
echo "bench tf32 sequence forced exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_tf32_forced.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
cd $OUT && tar czf r.tgz r && rm -rf r
