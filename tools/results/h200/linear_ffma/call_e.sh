#!/usr/bin/env bash
# The final build (the FFMA Linear's GELU products from 5120 rows): every GPU test, compare in fp32, the SSA's fp32
# bench against IE_LINEAR_FP32=cublas.
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -30
for form in legacy dynamo; do
  $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision fp32 --batch 64 --seed 7 \
    > $R/compare_ssa_${form}_fp32.log 2>&1
  echo "compare ssa $form fp32 exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_fp32.log | head -1)"
done
for round in 1 2; do
  for v in default cublas; do
    env_v=""; [ $v = cublas ] && env_v="IE_LINEAR_FP32=cublas"
    env $env_v $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 1,512,4096,65536 \
      --duration-ms 300 > $R/bench_ssa_fp32_${v}_$round.log 2>&1
    echo "ssa fp32 $v round $round: $(grep -E '^ +[0-9]+ \|' $R/bench_ssa_fp32_${v}_$round.log | awk '{print $1": "$3}' | tr '\n' ' ')"
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
