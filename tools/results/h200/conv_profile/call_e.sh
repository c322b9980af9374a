#!/usr/bin/env bash
# Fifth call: the pool-on-M kernel with row pairs interleaved in shared memory (a lane's two B registers of a
# k-step in one 64-bit load) and uniform passes without per-tile bounds, against the committed kernel
# (poolm_lab_head), in the lab: checks, the three sanitizers at small batches, timings alternating in two rounds,
# per-line counts of the new bulk kernel.
source tools/results/h200/device_env.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  L=.device/lab
  $L/poolm_lab --check-only > $R/poolm_check.log 2>&1; echo "poolm lab checks exit $?: $(grep -c '^PASS' $R/poolm_check.log) PASS, $(grep -c FAIL $R/poolm_check.log) FAIL; $(grep -E 'validation' $R/poolm_check.log)"
  grep FAIL $R/poolm_check.log | head -5
  for tool in memcheck racecheck synccheck; do
    POOLM_MAX_BATCH=7 compute-sanitizer --tool $tool --error-exitcode 9 $L/poolm_lab --check-only > $R/poolm_lab_$tool.log 2>&1
    echo "lab $tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/poolm_lab_$tool.log | tail -1)"
  done
  for round in 1 2; do
    for v in poolm_lab_head poolm_lab; do
      $L/$v --no-validate --csv $R/time_${v}_$round.csv > $R/time_${v}_$round.log 2>&1; echo "== $v round $round exit $?"
      grep -E "^ *(stk_w5_n5_px3200 f32|poolm_w4_n5 f32|poolm_w4_n5_bulk|poolm_w8_n5_bulk|poolm_w8_n5 f32|poolm_w4_n5_r4 f32)" $R/time_${v}_$round.log | cut -c1-80
    done
  done
  k=fused_conv_poolm_kernelINS0_13PoolMW8N5BulkENS0_6Word16I13__nv_bfloat16EEfS4_Li4EEEv
  LAB_BIN=$L/poolm_lab timeout 100 bash tests/kernels/profile_lines.sh tests/kernels/conv_poolm_lab.cu $k --no-validate --filter "poolm_w8_n5_bulk f32" > $R/lines_bulk_w8.txt 2>&1; echo "lines exit $?"; head -24 $R/lines_bulk_w8.txt | cut -c1-150
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call_e.log
cd $OUT && tar czf r.tgz r && rm -rf r
