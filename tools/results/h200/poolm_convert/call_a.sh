#!/usr/bin/env bash
# The pool-on-M kernel's conversion pass for flat plans by row pairs (warps) and words (lanes), no division per word
# (conv_poolm_lab_new), against HEAD's (conv_poolm_lab_old): two timing rounds alternating, the new one's checks and
# its checks of at most 7 images under memcheck, racecheck and synccheck.
source tools/results/h200/device_env.sh
L=.device/lab
mkdir -p $L && tar xf .device/labs.tgz -C $L
work() {
  for round in 1 2; do
    for v in old new; do
      $L/conv_poolm_lab_$v --no-validate > $R/time_${v}_$round.log 2>&1
      echo "$v round $round exit $?"; grep -E "bulk|r4" $R/time_${v}_$round.log | cut -c1-110
    done
  done
  $L/conv_poolm_lab_new --check-only > $R/check_new.log 2>&1
  echo "checks exit $?: $(grep -ciE '(^| )ok$|PASS' $R/check_new.log) ok, $(grep -ciE 'FAIL' $R/check_new.log) FAIL"
  for tool in memcheck racecheck synccheck; do
    POOLM_MAX_BATCH=7 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $L/conv_poolm_lab_new \
      --check-only > $R/new_$tool.log 2>&1
    echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/new_$tool.log | tail -1)"
  done
}
timeout 590 bash -c "$(declare -f work); R=$R L=$L; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
