#!/usr/bin/env bash
# The slot fix: checks, timings, racecheck on the small checks; where the time goes: ncu's warp states and the
# per-line profile of both compiled forms at batch 8192.
source tools/results/h200/row_ffma/common.sh
build_lab /tmp/row_ffma_lab > "$R/build.log" 2>&1 || { cat "$R/build.log"; exit 1; }
grep -E "registers|spill" "$R/build.log"
timeout 200 /tmp/row_ffma_lab --csv "$R/row_ffma.csv" 2>&1 | tee "$R/lab.log"
ROW_FFMA_QUICK=1 timeout 100 compute-sanitizer --tool racecheck /tmp/row_ffma_lab --check-only > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck.log" | tail -1)"
ROW_FFMA_QUICK=1 timeout 60 compute-sanitizer --tool memcheck /tmp/row_ffma_lab --check-only > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/memcheck.log" | tail -1)"
export ROW_FFMA_BATCHES=8192
timeout 120 ncu --clock-control none -k regex:row_ffma_kernel -c 2 --section WarpStateStats --section SchedulerStats \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy \
  /tmp/row_ffma_lab --no-validate > "$R/ncu_sections.txt" 2>&1
grep -E "row_ffma_kernel|Stall|Issued|Eligible|Active Warps|Warp Cycles|Executed Ipc|Bank" "$R/ncu_sections.txt" | head -60
for k in ILi256ELi6ELi8E ILi512ELi3ELi4E; do
  PYTHON=$TORCH_PYTHON LAB_BIN=/tmp/row_ffma_lab timeout 150 bash tests/kernels/profile_lines.sh tests/kernels/row_ffma_lab.cu \
    "row_ffma_kernel$k" --no-validate > "$R/lines_$k.txt" 2>&1
  head -45 "$R/lines_$k.txt"
done
cd "$OUT" && tar czf r.tgz r && rm -rf r
