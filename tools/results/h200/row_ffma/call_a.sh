#!/usr/bin/env bash
# First call of the strict-fp32 row-tile kernel: the lab's checks and timings, the small checks under
# compute-sanitizer memcheck, racecheck and synccheck, the ptxas report.
source tools/results/h200/row_ffma/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv > "$R/gpu.txt"
build_lab /tmp/row_ffma_lab > "$R/build.log" 2>&1 || { cat "$R/build.log"; exit 1; }
grep -E "registers|spill" "$R/build.log"
timeout 300 /tmp/row_ffma_lab --csv "$R/row_ffma.csv" 2>&1 | tee "$R/lab.log"
for tool in memcheck racecheck synccheck; do
  ROW_FFMA_QUICK=1 timeout 120 compute-sanitizer --tool $tool /tmp/row_ffma_lab --check-only > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$tool.log" | tail -1)"
done
cd "$OUT" && tar czf r.tgz r && rm -rf r
