#!/usr/bin/env bash
# Third call (one H200): ncu of the split Linear (v1) on q 64->64 and proj 64->64 + residual at 655,360 rows, one
# launch each after warm-ups: throughput, memory, warp states, source counters per line.
source tools/results/h200/device_env.sh
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
srcs="layers/sample_resident/row_tile_builder.cpp layers/sample_resident/sample_resident_builder.cpp"
nvcc $flags -I. tests/kernels/linear_split_lab.cu $srcs -o $OUT/lab > $R/build.log 2>&1
echo "build exit $?"
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section SchedulerStats --section SourceCounters"
for f in "q 64" "proj"; do
  name=${f// /_}
  timeout 120 ncu --clock-control none -k regex:linear_split_kernel --launch-skip 5 --launch-count 1 $sections \
    $OUT/lab --no-validate --filter "$f" > $R/ncu_$name.txt 2>&1
  echo "ncu $f exit $?"
  grep -E "Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Issue Slots Busy|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Instructions  |Stall|Uncoalesced|sectors" $R/ncu_$name.txt | head -30
done
rm -f $OUT/lab
