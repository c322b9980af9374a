#!/usr/bin/env bash
# Fifth call: the head lab as committed (its two runners on one upload helper): checks, the checks of at most 1000
# samples under memcheck, and the timings of every runner at batches 1 to 50000.
source tools/results/h200/device_env.sh
L=.device/lab
mkdir -p $L && tar xf .device/labs.tgz -C $L
work() {
  $L/head_chain_lab > $R/head_lab.txt 2>&1
  echo "head lab exit $?: $(grep -c ' ok$' $R/head_lab.txt) ok, $(grep -c 'FAIL' $R/head_lab.txt) FAIL"
  grep -E "^  (head8|mma16_g2) b" $R/head_lab.txt | cut -c1-60
  HEAD_LAB_MAX_BATCH=1000 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $L/head_chain_lab \
    --check-only > $R/head_lab_memcheck.log 2>&1
  echo "memcheck (head lab) exit $?: $(grep -E 'ERROR SUMMARY' $R/head_lab_memcheck.log | tail -1)"
}
timeout 590 bash -c "$(declare -f work); R=$R L=$L; work" 2>&1 | tee $R/call_e.log
cd $OUT && tar czf r.tgz r && rm -rf r
