#!/usr/bin/env bash
# The pool-on-M kernel's conversion pass for flat plans by a running (channel, row pair, word) position per thread
# (poolm_new), against HEAD's two FastDivs per item (poolm_head); poolm_new also has 8 warps capped for 4 CTAs per
# SM (poolm_w8_n5_bulk_4cta) and 16 warps at 2 (poolm_w16_n5_bulk). The new lab's checks first, then the bulk
# configurations' timings, two rounds alternating, then its checks of at most 7 images under the sanitizers.
source tools/results/h200/device_env.sh
L=.device/lab
mkdir -p $L && tar xf .device/labs.tgz -C $L
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $L/poolm_new --check-only > $R/check_new.log 2>&1
  echo "checks exit $?: $(grep -c '^PASS' $R/check_new.log) PASS, $(grep -c '^FAIL' $R/check_new.log) FAIL"
  grep '^FAIL' $R/check_new.log | head -5
  for round in 1 2; do
    for v in head new; do
      timeout 120 $L/poolm_$v --no-validate --filter bulk > $R/time_${v}_$round.log 2>&1
      echo "$v round $round exit $?"; grep -E "bulk" $R/time_${v}_$round.log | cut -c1-110
    done
  done
  for tool in memcheck racecheck synccheck; do
    POOLM_MAX_BATCH=7 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $L/poolm_new \
      --check-only > $R/new_$tool.log 2>&1
    echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/new_$tool.log | tail -1)"
  done
}
timeout 590 bash -c "$(declare -f work); R=$R L=$L; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
