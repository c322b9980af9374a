#!/usr/bin/env bash
# Second call: the pool-on-M kernel with bulk staging (the next image's raw bytes by one bulk copy while this one
# computes, then a conversion pass in shared memory) against the per-thread staging, in the lab: checks, the
# three sanitizers, timings in two rounds, ncu sections and per-line counts of both at batch 10000.
source tools/results/h200/device_env.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  L=.device/lab
  $L/poolm_lab --check-only > $R/poolm_check.log 2>&1; echo "poolm lab checks exit $?: $(grep -c '^PASS' $R/poolm_check.log) PASS, $(grep -c FAIL $R/poolm_check.log) FAIL; $(grep -E 'validation|bulk 33' $R/poolm_check.log)"
  grep FAIL $R/poolm_check.log | head
  for tool in memcheck racecheck synccheck; do
    POOLM_MAX_BATCH=1000 compute-sanitizer --tool $tool --error-exitcode 9 $L/poolm_lab --check-only > $R/poolm_$tool.log 2>&1
    echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/poolm_$tool.log | tail -1)"
  done
  for round in 1 2; do
    $L/poolm_lab --no-validate --csv $R/time_$round.csv > $R/time_$round.log 2>&1; echo "timings round $round exit $?"
    grep -E "^ *(stk_w5_n5_px3200 f32|poolm_w4_n5 f32|poolm_w4_n5_bulk|poolm_w8_n5_bulk|poolm_w8_n5 f32|poolm_w4_n5_r4 f32)" $R/time_$round.log
  done
  secs="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis"
  for f in "poolm_w4_n5_bulk f32" "poolm_w8_n5_bulk f32"; do
    tag=${f%% *}
    timeout 100 ncu --cache-control none --clock-control none $secs -k regex:fused_conv --launch-skip 3 --launch-count 1 \
      $L/poolm_lab --no-validate --filter "$f" > $R/ncu_$tag.txt 2>&1; echo "ncu $tag exit $?"
    grep -E "^\s+(Duration|Executed Instructions  |No Eligible|Achieved Occupancy|Theoretical Occupancy|Registers Per)" $R/ncu_$tag.txt
  done
  k3=fused_conv_poolm_kernelINS0_9PoolMW4N5ENS0_6Word16I13__nv_bfloat16EEfS4_Li4EEEv
  k4=fused_conv_poolm_kernelINS0_13PoolMW4N5BulkENS0_6Word16I13__nv_bfloat16EEfS4_Li4EEEv
  LAB_BIN=$L/poolm_lab timeout 120 bash tests/kernels/profile_lines.sh tests/kernels/conv_poolm_lab.cu $k3 --no-validate --filter "poolm_w4_n5 f32" > $R/lines_poolm.txt 2>&1; echo "lines poolm exit $?"; head -45 $R/lines_poolm.txt
  LAB_BIN=$L/poolm_lab timeout 120 bash tests/kernels/profile_lines.sh tests/kernels/conv_poolm_lab.cu $k4 --no-validate --filter "poolm_w4_n5_bulk f32" > $R/lines_bulk.txt 2>&1; echo "lines bulk exit $?"; head -45 $R/lines_bulk.txt
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call_b.log
cd $OUT && tar czf r.tgz r && rm -rf r
