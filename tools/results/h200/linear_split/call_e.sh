#!/usr/bin/env bash
# Fifth call (one H200): the split Linear with the activation and the residual compiled in (a run-time switch per
# element was a quarter of its executed instructions, call_d) and a chunk's residual loaded before its products:
# the lab's checks against float64 beside the FFMA kernel's, both kernels' times on the SSA's fp32 products, two
# rounds; memcheck on the checks. Results stay as files under $OUT.
source tools/results/h200/device_env.sh
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
srcs="layers/sample_resident/row_tile_builder.cpp layers/sample_resident/sample_resident_builder.cpp"
nvcc $flags -I. tests/kernels/linear_split_lab.cu $srcs -o $OUT/lab > $R/build.log 2>&1
echo "build exit $?: $(grep -A2 'linear_split_kernel' $R/build.log | grep -E 'spill|registers' | tr '\n' ';' | cut -c1-400)"
timeout 120 $OUT/lab --check-only > $R/check.log 2>&1
echo "checks exit $?"; cat $R/check.log | cut -c1-190
for round in 1 2; do
  timeout 120 $OUT/lab --no-validate --csv $R/time_$round.csv > $R/time_$round.log 2>&1
  echo "time round $round exit $?"; grep -E "ms" $R/time_$round.log
done
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $OUT/lab --check-only > $R/memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/memcheck.log | tail -1)"
rm -f $OUT/lab
