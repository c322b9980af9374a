#!/usr/bin/env bash
# Seventh run: the pair lab with the shuffle-based map store (pair_store_map_shfl: one 32-bit store per lane)
# beside the first store, checks (batches up to 1000, pass boundaries with two n-tiles per pass) and timings; the
# checks of small batches under memcheck and racecheck.
set -uo pipefail
R=$OUT/r
mkdir -p $R
L=.device/lab
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  PAIR_MAX_BATCH=1000 $L/conv_pair_lab --csv $R/pair.csv > $R/pair_lab.log 2>&1; echo "lab exit $?"
  grep -E "FAIL|validation" $R/pair_lab.log | head; sed -n '/^timings/,$p' $R/pair_lab.log
  for tool in memcheck racecheck; do
    PAIR_MAX_BATCH=7 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $L/conv_pair_lab --check-only > $R/san_$tool.log 2>&1
    echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san_$tool.log | tail -1)"
  done
} 2>&1 | tee $R/call_g.log
cd $OUT && tar czf r.tgz r && rm -rf r
