#!/usr/bin/env bash
# LayerNorm with several lanes per row (values in registers, shuffles), attention one query per thread where they
# fit; the row Linears' k loop outside their tiles (-DIE_RF_KK_OUTER=1) against inside, alternating, two rounds;
# checks, attribution of the one-CTA forms, ncu stall reasons and the SASS of 512 x 1.
# (IE_RF_KK_OUTER was removed after this call: the k loop stays inside the tiles.)
source tools/results/h200/row_ffma/common.sh
build_lab /tmp/lab_in > "$R/build_in.log" 2>&1 &
build_lab /tmp/lab_out -DIE_RF_KK_OUTER=1 > "$R/build_out.log" 2>&1 &
wait
grep -E "registers|spill" "$R/build_in.log" "$R/build_out.log"
timeout 200 /tmp/lab_in --check-only > "$R/checks.log" 2>&1; tail -1 "$R/checks.log"; grep -c "ok$" "$R/checks.log"
grep -v "ok$" "$R/checks.log" | head -8
timeout 100 /tmp/lab_out --check-only --filter x > "$R/checks_out.log" 2>&1; tail -1 "$R/checks_out.log"
alternate in out
ROW_FFMA_ATTRIBUTION=1 timeout 120 /tmp/lab_in --no-validate --filter c1 | grep attribution | tee "$R/attribution.log"
ROW_FFMA_BATCHES=8192 timeout 120 ncu --clock-control none -k regex:row_ffma_kernelILi512 -c 1 \
  --metrics "$STALLS,smsp__inst_executed.sum,sm__cycles_elapsed.avg,smsp__issue_active.avg.pct_of_peak_sustained_active" \
  /tmp/lab_in --no-validate --filter 512x1 > "$R/ncu_stalls.txt" 2>&1
grep -E "stalled|inst_executed|cycles|issue_active" "$R/ncu_stalls.txt" | sed 's/smsp__average_warps_issue_stalled_//'
cuobjdump -sass -fun '_ZN2ie2sr2rf15row_ffma_kernelILi512ELi1ELi3ELi4ELi1EEEvNS1_4ArgsE' /tmp/lab_in > "$R/sass_512.txt" 2>&1
wc -l "$R/sass_512.txt"
cd "$OUT" && tar czf r.tgz r && rm -rf r
