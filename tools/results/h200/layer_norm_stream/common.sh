#!/usr/bin/env bash
# Sourced by this folder's call scripts on the GPU machine: ln_lab_rounds (the LayerNorm lab carried as
# .device/lab/ln_lab: its checks into $R/check.log, then two timing rounds into $R/time_N.log and .csv).
ln_lab_rounds() {
  local L=.device/lab/ln_lab
  $L --check-only > $R/check.log 2>&1; echo "lab checks exit $?: $(grep -c '^PASS' $R/check.log) PASS, $(grep -c '^FAIL' $R/check.log) FAIL"
  for round in 1 2; do
    $L --no-validate --csv $R/time_$round.csv > $R/time_$round.log 2>&1; echo "lab timing round $round exit $?"
  done
}
