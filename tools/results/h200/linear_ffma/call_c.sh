#!/usr/bin/env bash
# Sanitizers on the final build: the Linear GPU tests (FFMA among them) and the linear lab's checks under memcheck,
# racecheck and synccheck; the row-FFMA lab's small checks (after ffma_common.cuh) under the same three.
source tools/results/h200/device_env.sh
flags=(-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -I.)
nvcc "${flags[@]}" tests/kernels/linear_lab.cu -o /tmp/linear_lab > $R/linear_lab.build.log 2>&1 &
nvcc "${flags[@]}" tests/kernels/row_ffma_lab.cu layers/sample_resident/row_tile_builder.cpp layers/sample_resident/row_ffma_builder.cpp \
  layers/sample_resident/sample_resident_builder.cpp -o /tmp/row_ffma_lab > $R/row_ffma_lab.build.log 2>&1 &
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $B/gpu_tests --no-version -tc='*Linear*' > $R/gpu_tests_linear_$tool.log 2>&1
  echo "gpu_tests Linear under $tool exit $?: $(grep -E '^\[doctest\] test cases|ERROR SUMMARY|RACECHECK SUMMARY' $R/gpu_tests_linear_$tool.log | tr '\n' ' ')"
done
wait
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool /tmp/linear_lab --check-only > $R/linear_lab_$tool.log 2>&1
  echo "linear_lab under $tool exit $?: $(grep -E 'validation|ERROR SUMMARY|RACECHECK SUMMARY' $R/linear_lab_$tool.log | tr '\n' ' ')"
  ROW_FFMA_QUICK=1 timeout 120 compute-sanitizer --tool $tool /tmp/row_ffma_lab --check-only > $R/row_ffma_$tool.log 2>&1
  echo "row_ffma_lab under $tool exit $?: $(grep -E 'validation|ERROR SUMMARY|RACECHECK SUMMARY' $R/row_ffma_$tool.log | tr '\n' ' ')"
done
cd $OUT && tar czf r.tgz r && rm -rf r
