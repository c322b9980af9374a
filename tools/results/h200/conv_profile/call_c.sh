#!/usr/bin/env bash
# Third call: three builds of the pool-on-M lab side by side: the committed kernel (poolm_lab_head: staging by
# per-thread loads, float epilogue), bulk staging with the float epilogue (poolm_lab_bulk, built with
# -DIE_POOLM_PACKED_EPILOGUE=0) and bulk staging with the packed 16-bit epilogue (poolm_lab). Checks and the
# sanitizers on the new build, timings alternating in two rounds, per-line counts of the new bulk kernel, SASS.
source tools/results/h200/device_env.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  L=.device/lab
  for v in poolm_lab poolm_lab_bulk; do
    $L/$v --check-only > $R/${v}_check.log 2>&1; echo "$v checks exit $?: $(grep -c '^PASS' $R/${v}_check.log) PASS, $(grep -c FAIL $R/${v}_check.log) FAIL; $(grep -E 'validation|bulk 33' $R/${v}_check.log | tr '\n' ' ')"
    grep FAIL $R/${v}_check.log | head -5
  done
  for tool in memcheck racecheck synccheck; do
    POOLM_MAX_BATCH=1000 compute-sanitizer --tool $tool --error-exitcode 9 $L/poolm_lab --check-only > $R/poolm_$tool.log 2>&1
    echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/poolm_$tool.log | tail -1)"
  done
  for round in 1 2; do
    for v in poolm_lab_head poolm_lab_bulk poolm_lab; do
      $L/$v --no-validate --csv $R/time_${v}_$round.csv > $R/time_${v}_$round.log 2>&1; echo "== $v round $round exit $?"
      grep -E "^ *(stk_w5_n5_px3200|poolm_w4_n5 |poolm_w4_n5_bulk|poolm_w8_n5_bulk|poolm_w8_n5 |poolm_w4_n5_r4 )" $R/time_${v}_$round.log | grep -v "batch      1 " | cut -c1-80
    done
  done
  secs="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis"
  for f in "poolm_w4_n5_bulk f32" "poolm_w8_n5_bulk f32"; do
    tag=${f%% *}
    timeout 100 ncu --cache-control none --clock-control none $secs -k regex:fused_conv --launch-skip 3 --launch-count 1 \
      $L/poolm_lab --no-validate --filter "$f" > $R/ncu_$tag.txt 2>&1; echo "ncu $tag exit $?"
    grep -E "^\s+(Duration|Executed Instructions  |No Eligible|Achieved Occupancy|Theoretical Occupancy|Registers Per|Compute \(SM\) Th)" $R/ncu_$tag.txt
  done
  k4=fused_conv_poolm_kernelINS0_13PoolMW4N5BulkENS0_6Word16I13__nv_bfloat16EEfS4_Li4EEEv
  LAB_BIN=$L/poolm_lab timeout 120 bash tests/kernels/profile_lines.sh tests/kernels/conv_poolm_lab.cu $k4 --no-validate --filter "poolm_w4_n5_bulk f32" > $R/lines_bulk.txt 2>&1; echo "lines bulk exit $?"; head -40 $R/lines_bulk.txt
  cuobjdump -sass -fun _ZN2ie10fused_conv23fused_conv_poolm_kernelINS0_13PoolMW4N5BulkENS0_6Word16I13__nv_bfloat16EEfS4_Li4EEEvNS0_9PoolMPlanEPKT1_PK5uint4PKfPT2_ $L/poolm_lab > $R/bulk_k4.sass 2>&1; echo "sass $? $(wc -l < $R/bulk_k4.sass)"
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call_c.log
cd $OUT && tar czf r.tgz r && rm -rf r
