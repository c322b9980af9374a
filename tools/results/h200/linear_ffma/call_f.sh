#!/usr/bin/env bash
# The final build (the FFMA Linear's GELU products from 32768 rows): every GPU test; the SSA's fp32 bench at 512 and
# 4096 against IE_LINEAR_FP32=cublas.
source tools/results/h200/device_env.sh
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -30
for v in default cublas; do
  env_v=""; [ $v = cublas ] && env_v="IE_LINEAR_FP32=cublas"
  env $env_v $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 512,4096 \
    --duration-ms 300 > $R/bench_ssa_fp32_$v.log 2>&1
  echo "ssa fp32 $v: $(grep -E '^ +[0-9]+ \|' $R/bench_ssa_fp32_$v.log | awk '{print $1": "$3}' | tr '\n' ' ')"
done
cd $OUT && tar czf r.tgz r && rm -rf r
