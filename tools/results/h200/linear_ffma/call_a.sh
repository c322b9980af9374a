#!/usr/bin/env bash
# The strict-fp32 Linear on FFMA (layers/linear/linear_ffma.cuh): its lab and the row-FFMA lab after the shared
# stream/encoder/decoder moved to ffma_common.cuh; every GPU test; compare cpu against cuda in fp32 for both models
# and exports; bench of the SSA and the conv net in fp32 with the FFMA Linear against IE_LINEAR_FP32=cublas,
# alternating, two rounds; the SSA's per-op profile in fp32 at 65536.
source tools/results/h200/linear_ffma/common.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
flags=(-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I.)
nvcc "${flags[@]}" tests/kernels/linear_lab.cu -o /tmp/linear_lab > $R/linear_lab.build.log 2>&1 &
nvcc "${flags[@]}" tests/kernels/row_ffma_lab.cu layers/sample_resident/row_tile_builder.cpp layers/sample_resident/row_ffma_builder.cpp \
  layers/sample_resident/sample_resident_builder.cpp -o /tmp/row_ffma_lab > $R/row_ffma_lab.build.log 2>&1 &
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
wait
timeout 120 /tmp/linear_lab --csv $R/linear_lab.csv > $R/linear_lab.log 2>&1
echo "linear_lab exit $?"; grep -E "FAIL|validation" $R/linear_lab.log; grep -E "^f32" $R/linear_lab.log
timeout 150 /tmp/row_ffma_lab --check-only > $R/row_ffma_checks.log 2>&1; tail -1 $R/row_ffma_checks.log
timeout 60 /tmp/row_ffma_lab --no-validate --filter row_lane | grep row_lane | tee $R/row_lane_time.log
compare_fp32 ssa convnet
bench_fp32 ssa 1,512,4096,65536 2 ffma  # this build took FFMA for every product it supports
bench_fp32 convnet 1,1000,10000 2 ffma
$B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 65536 --profile --duration-ms 400 \
  > $R/profile_ssa_65536_fp32.log 2>&1
grep -E "ie.Linear|total" $R/profile_ssa_65536_fp32.log | cut -c1-40,120-175
cd $OUT && tar czf r.tgz r && rm -rf r
