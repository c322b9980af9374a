#!/usr/bin/env bash
# Sixth call (one H200), the final build (tf32 takes the split sequence from 256 samples): every GPU test, the
# strict-fp32 / tf32 SSA test under memcheck, inspect and bench in tf32 around the threshold.
source tools/results/h200/device_env.sh
timeout 300 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -20
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version \
  -tc="GPU: in strict fp32*" > $R/gpu_tests_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_memcheck.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/gpu_tests_memcheck.log)"
for batch in 128 256; do
  $B/inspect weights/ssa.onnx --batch $batch --backend cuda --precision tf32 > $R/inspect_ssa_tf32_$batch.txt 2>&1
  echo "inspect $batch exit $?: $(grep -E 'steps on' $R/inspect_ssa_tf32_$batch.txt)"
done
timeout 100 $B/bench --config configs/ssa.yaml --paths cuda --precision tf32 --batches 1,128,256,512,4096,65536 \
  --duration-ms 150 --json $R/bench_ssa_tf32.json > $R/bench_ssa_tf32.log 2>&1
echo "bench tf32 exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_tf32.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
cd $OUT && tar czf r.tgz r && rm -rf r
