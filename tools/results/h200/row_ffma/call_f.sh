#!/usr/bin/env bash
# The row Linears software-pipelined (the next k's operands load during this k's FFMAs, pointers stepped), LayerNorm
# with a compile-time share per lane; forms 256 x 2, 512 x 1 (one CTA per SM) and 128 x 1 (three per SM). Checks,
# timings, attribution, ncu stall reasons of 512 x 1 at 8192, sanitizers on the small checks.
source tools/results/h200/row_ffma/common.sh
build_lab /tmp/lab > "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
grep -E "registers|spill" "$R/build.log"
timeout 200 /tmp/lab --check-only > "$R/checks.log" 2>&1; tail -1 "$R/checks.log"; grep -c "ok$" "$R/checks.log"
grep -v "ok$" "$R/checks.log" | head -8
timeout 100 /tmp/lab --no-validate --csv "$R/time.csv" | grep row_ffma | tee "$R/time.log"
ROW_FFMA_ATTRIBUTION=1 timeout 120 /tmp/lab --no-validate | grep attribution | tee "$R/attribution.log"
ROW_FFMA_BATCHES=8192 timeout 120 ncu --clock-control none --kernel-name-base mangled -k regex:row_ffma_kernelILi512 -c 1 \
  --metrics "$STALLS,smsp__inst_executed.sum,sm__cycles_elapsed.avg,smsp__issue_active.avg.pct_of_peak_sustained_active" \
  /tmp/lab --no-validate --filter 512x1 > "$R/ncu_stalls.txt" 2>&1
grep -E "stalled|inst_executed|cycles|issue_active" "$R/ncu_stalls.txt" | sed 's/smsp__average_warps_issue_stalled_//' | awk '{print $1, $NF}'
for tool in memcheck racecheck; do
  ROW_FFMA_QUICK=1 timeout 100 compute-sanitizer --tool $tool /tmp/lab --check-only > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$tool.log" | tail -1)"
done
cd "$OUT" && tar czf r.tgz r && rm -rf r
