#!/usr/bin/env bash
# Fourth call, the build of the stop's last commit (the head tests' shared plan helper): every GPU test, and the
# head and attention tests under memcheck.
source tools/results/h200/device_env.sh
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
t="*classifier head*,*too wide for the CUDA-core*,*head kernels decline*,*Attention with its projections*"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version -tc="$t" > $R/memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|test cases' $R/memcheck.log | tr '\n' ' ' | cut -c1-200)"
cd $OUT && tar czf r.tgz r && rm -rf r
