#!/usr/bin/env bash
# Five compiled forms (kRfCompiled: 1 CTA per SM with 256 or 512 threads and 12-sample tiles; 128 threads with
# 3-sample tiles, 2 or 3 CTAs per SM): checks, timings, and each form's stage attribution at 65536.
source tools/results/h200/row_ffma/common.sh
build_lab /tmp/lab > "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
grep -E "registers|spill" "$R/build.log"
timeout 200 /tmp/lab --check-only 2>&1 > "$R/checks.log"; tail -1 "$R/checks.log"; grep -c "ok$" "$R/checks.log"
grep -v "ok$" "$R/checks.log" | head
timeout 100 /tmp/lab --no-validate --csv "$R/time.csv" | grep row_ffma | tee "$R/time.log"
ROW_FFMA_ATTRIBUTION=1 timeout 150 /tmp/lab --no-validate | grep attribution | tee "$R/attribution.log"
ROW_FFMA_QUICK=1 timeout 100 compute-sanitizer --tool racecheck /tmp/lab --check-only > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck.log" | tail -1)"
cd "$OUT" && tar czf r.tgz r && rm -rf r
