#!/usr/bin/env bash
# The FFMA Linear where it was measured faster (GELU / Tanh / Sigmoid products from 131072 rows; IE_LINEAR_FP32
# overrides): every GPU test, compare in fp32, the SSA's fp32 bench against IE_LINEAR_FP32=cublas, two rounds.
source tools/results/h200/linear_ffma/common.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -30
compare_fp32 ssa
bench_fp32 ssa 1,512,4096,65536 2 default
cd $OUT && tar czf r.tgz r && rm -rf r
