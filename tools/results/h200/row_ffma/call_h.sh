#!/usr/bin/env bash
# The row-per-lane form (row_lane.cuh) beside the tiled forms: checks, timings, its stage attribution at 65536,
# ncu stall reasons and the sanitizers on the small checks.
source tools/results/h200/row_ffma/common.sh
build_lab /tmp/lab > "$R/build.log" 2>&1 || { tail -30 "$R/build.log"; exit 1; }
grep -E "registers|spill" "$R/build.log"
timeout 240 /tmp/lab --check-only > "$R/checks.log" 2>&1; tail -1 "$R/checks.log"; grep -c "ok$" "$R/checks.log"
grep "row_lane" "$R/checks.log" | head -12; grep -v "ok$" "$R/checks.log" | head -8
timeout 100 /tmp/lab --no-validate --csv "$R/time.csv" | grep -E "row_" | tee "$R/time.log"
ROW_FFMA_ATTRIBUTION=1 timeout 60 /tmp/lab --no-validate --filter row_lane | grep attribution | tee "$R/attribution.log"
ROW_FFMA_BATCHES=8192 timeout 100 ncu --clock-control none --kernel-name-base mangled -k regex:row_lane -c 1 \
  --metrics "$STALLS,smsp__inst_executed.sum,sm__cycles_elapsed.avg,smsp__issue_active.avg.pct_of_peak_sustained_active" \
  /tmp/lab --no-validate --filter row_lane > "$R/ncu_stalls.txt" 2>&1
grep -E "stalled|inst_executed|cycles|issue_active" "$R/ncu_stalls.txt" | sed 's/smsp__average_warps_issue_stalled_//' | awk '$NF+0 > 0.05 || /inst|cycles|issue/ {print $1, $NF}'
for tool in memcheck racecheck synccheck; do
  ROW_FFMA_QUICK=1 timeout 120 compute-sanitizer --tool $tool /tmp/lab --check-only > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$tool.log" | tail -1)"
done
cd "$OUT" && tar czf r.tgz r && rm -rf r
