#!/usr/bin/env bash
# Seventh call (one H200): the final build after review (one loader of a tile's A fragments, load_rows, shared by the
# split kernels): every GPU test, the fp32 SSA tests under memcheck, the fp32 bench at 4096 and 65536. Results in r.tgz.
source tools/results/h200/device_env.sh
timeout 200 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -20
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version \
  -tc="GPU: in strict fp32*" > $R/gpu_tests_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_memcheck.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/gpu_tests_memcheck.log)"
timeout 60 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 4096,65536 \
  --duration-ms 150 --json $R/bench_ssa_fp32.json > $R/bench_ssa_fp32.log 2>&1
echo "bench fp32 exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
cd $OUT && tar czf r.tgz r && rm -rf r
