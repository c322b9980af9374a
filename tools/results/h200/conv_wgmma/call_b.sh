#!/usr/bin/env bash
# Second call: the epilogue split across the lanes of a pool window (reduce-scatter shuffles, one store per lane and
# value), descriptors by adding offsets, no k-step branches; otherwise as call_a (validation, timings against the
# shared-rows kernel in the same process, sanitizers, SASS, one ncu launch).

source tools/results/h200/device_env.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $L/fused_conv_lab --filter "wg_|shr_bf16|shr_f16" --check-only > $R/check.log 2>&1
  echo "check exit $?: $(grep -c '^PASS' $R/check.log) PASS, $(grep -c '^FAIL' $R/check.log) FAIL"
  grep -E "^(PASS|FAIL)  wg" $R/check.log | cut -c1-200 | head -40
  for round in 1 2; do
    $L/fused_conv_lab --filter "wg_bf16 wg_m64n64 bf16->bf16|shr_bf16 stk_w4_n4_px1024 bf16->bf16|wg_f16|shr_f16 stk_w4_n4_px1024 f16->f16" \
      --no-validate > $R/time_$round.log 2>&1
    echo "timing round $round exit $?"; grep -E "conv2" $R/time_$round.log | cut -c1-150
  done
  for tool in memcheck racecheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $L/fused_conv_lab --filter "wg_" --check-only \
      --max-batch 7 > $R/wg_$tool.log 2>&1
    echo "$tool (lab wg) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/wg_$tool.log | tail -1)"
  done
  cuobjdump -sass -fun '_ZN2ie10fused_conv23fused_conv_wgmma_kernelI13__nv_bfloat16S2_Li20ELi4EEEvNS0_9WgmmaPlanEPKT_PK5uint4PKfPT0_' \
    $L/fused_conv_lab > $R/sass_wg20.txt 2>&1
  echo "SASS lines $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $R/sass_wg20.txt), HGMMA $(grep -c HGMMA $R/sass_wg20.txt), STS $(grep -c 'STS' $R/sass_wg20.txt), LDG $(grep -c 'LDG' $R/sass_wg20.txt), SHFL $(grep -c SHFL $R/sass_wg20.txt)"
  timeout 120 ncu --clock-control none -k regex:wgmma --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section InstructionStats \
    $L/fused_conv_lab --filter "wg_bf16 wg_m64n64 bf16->bf16" --no-validate --batch 10000 > $R/ncu_wg.txt 2>&1
  echo "ncu exit $?"; grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued" $R/ncu_wg.txt | head -20
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R L=$L; work" 2>&1 | tee $R/call_b.log
cd $OUT && tar czf r.tgz r && rm -rf r
