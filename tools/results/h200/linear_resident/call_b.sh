#!/usr/bin/env bash
# Second call: 8 columns per thread (BM 128 and 256) beside call_a's best 4-column form and the per-block kernel;
# checks under memcheck; ncu's stall and pipe figures for q 64->64 at 655,360 rows, per-block against bm128t8k64.
source tools/results/h200/linear_resident/common.sh
run_lab
timeout 120 compute-sanitizer --tool memcheck /tmp/linear_resident_lab --check-only > $R/lab_memcheck.log 2>&1
echo "lab under memcheck exit $?: $(grep -E 'validation|ERROR SUMMARY' $R/lab_memcheck.log | tr '\n' ' ')"
for k in 'regex:linear_ffma_kernel' 'regex:Li128ELi64ELb0ELi8E'; do
  timeout 120 ncu --clock-control none --kernel-name-base mangled -k "$k" -s 5 -c 1 --section WarpStateStats \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section Occupancy /tmp/linear_resident_lab --no-validate --filter "655360 q 64->64" > $R/ncu_${k#regex:}.txt 2>&1
  echo "== ncu $k"; grep -E "Duration|Issue Slots Busy|Eligible Warps|No Eligible|Achieved Occ|Warp Cycles Per Issued|Shared Memory|Bank|L1/TEX Hit|Mem Busy|Max Bandwidth" $R/ncu_${k#regex:}.txt | head -20
done
cd $OUT && tar czf r.tgz r && rm -rf r
