#!/usr/bin/env bash
# First call: the pool-on-M conv lab (tests/kernels/conv_poolm_lab.cu, built on the CPU machine and carried as
# .device/lab/poolm_lab): its checks, two timing rounds of conv1 against the stacked kernel, then the checks of
# at most 7 images under memcheck, racecheck and synccheck.
source tools/results/h200/device_env.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  L=.device/lab/poolm_lab
  timeout 200 $L --check-only > $R/check.log 2>&1; echo "checks exit $?: $(grep -c '^PASS' $R/check.log) PASS, $(grep -c '^FAIL' $R/check.log) FAIL"
  grep -E "^FAIL" $R/check.log | head -20
  for round in 1 2; do
    timeout 120 $L --no-validate --csv $R/time_$round.csv > $R/time_$round.log 2>&1; echo "timing round $round exit $?"
    grep -E "batch" $R/time_$round.log
  done
  for tool in memcheck racecheck synccheck; do
    POOLM_MAX_BATCH=7 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $L --check-only > $R/$tool.log 2>&1
    echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.log | tail -1)"
  done
}
timeout 590 bash -c "$(declare -f work); R=$R; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
