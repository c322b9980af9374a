#!/usr/bin/env bash
# First call: the LayerNorm lab (tests/kernels/layer_norm_lab.cu, built here and carried as .device/lab/ln_lab) with
# the streaming group kernel beside the plain one: checks, then timings of every target shape per kernel shape
# (plain, stream with scale and bias in registers, stream loading them per row) against a copy of the same bytes,
# two rounds; the checks under compute-sanitizer memcheck.
source tools/results/h200/device_env.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  L=.device/lab/ln_lab
  $L --check-only > $R/check.log 2>&1; echo "checks exit $?: $(grep -c '^PASS' $R/check.log) PASS, $(grep -c '^FAIL' $R/check.log) FAIL"
  grep "^FAIL" $R/check.log | head
  for round in 1 2; do
    $L --no-validate --csv $R/time_$round.csv > $R/time_$round.log 2>&1; echo "timing round $round exit $?"
  done
  grep -E "262144x64 +gelu|1048576x320 +gelu|16384x4096 +gelu|655360x64" $R/time_1.log
  timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 $L --check-only > $R/memcheck.log 2>&1
  echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/memcheck.log | tail -1)"
}
timeout 590 bash -c "$(declare -f work); R=$R; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
