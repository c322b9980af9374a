#!/usr/bin/env bash
# First call: the W-resident strict-fp32 Linear's lab (checks, then timings against the per-block FFMA kernel at the
# SSA's shapes) and its checks under memcheck and racecheck. No engine build.
source tools/results/h200/linear_resident/common.sh
run_lab
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool /tmp/linear_resident_lab --check-only > $R/lab_$tool.log 2>&1
  echo "lab under $tool exit $?: $(grep -E 'validation|ERROR SUMMARY|RACECHECK SUMMARY' $R/lab_$tool.log | tr '\n' ' ')"
done
cd $OUT && tar czf r.tgz r && rm -rf r
