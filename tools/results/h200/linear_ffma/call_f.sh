#!/usr/bin/env bash
# The final build (the FFMA Linear's GELU products from 32768 rows): every GPU test; the SSA's fp32 bench at 512 and
# 4096 against IE_LINEAR_FP32=cublas.
source tools/results/h200/linear_ffma/common.sh
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -30
bench_fp32 ssa 512,4096 1 default
cd $OUT && tar czf r.tgz r && rm -rf r
