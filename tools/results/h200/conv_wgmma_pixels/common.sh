#!/usr/bin/env bash
# Sourced by this folder's call scripts on the GPU machine (after device_env.sh, from the repository root; L the lab
# binary, R the results):
#   px_lab_checks [RUNS] (the wgmma pixels-on-M runs, or RUNS, against the float64 reference on every lab shape, then under memcheck,
#     racecheck and synccheck at batches up to 7),
#   px_lab_times "BATCHES" ROUNDS (its two configurations against the wgmma weights-on-M kernel and the shared-rows
#     kernel, conv2 in bf16, same process, alternating),
#   px_conv2_times FILTER [SHAPE] (conv2, or SHAPE, only, 10000 / 1000 / 1 images, two rounds, same process),
#   px_sass KERNEL (instruction counts of one instantiation's SASS; PX_KERNEL: conv2's in bf16, one warpgroup),
#   px_ncu "CONFIGS" "SECTIONS" (one conv2 launch at 10000 per configuration).
PX_KERNEL='_ZN2ie10fused_conv30fused_conv_wgmma_pixels_kernelINS0_11WgPixelsOneE13__nv_bfloat16S3_Li4ELi4ELi4ELi14EEEvNS0_12WgPixelsPlanEiiiPKT0_PK5uint4PKfPT1_' 
px_lab_checks() {
  local runs=${1:-wgpx_}
  $L/fused_conv_lab --filter "$runs" --check-only > $R/check.log 2>&1
  echo "lab check exit $?: $(grep -c '^PASS' $R/check.log) PASS, $(grep -c '^FAIL' $R/check.log) FAIL"
  grep -E "^FAIL" $R/check.log | cut -c1-220 | head -20
  for tool in memcheck racecheck synccheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $L/fused_conv_lab --filter "$runs" --check-only \
      --max-batch 7 > $R/${runs%_}_$tool.log 2>&1
    echo "$tool (lab $runs) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/${runs%_}_$tool.log | tail -1)"
  done
}
px_lab_times() {
  for round in $(seq 1 $2); do
    for b in $1; do
      $L/fused_conv_lab --filter "wgpx_bf16 wgpx_1wg bf16->bf16|wgpx_bf16 wgpx_2wg bf16->bf16|wg_bf16 wg_m64n64_s1 bf16->bf16|shr_bf16 stk_w4_n4_px1024 bf16->bf16" \
        --no-validate --batch $b > $R/time_${round}_$b.log 2>&1
      grep -E "conv2" $R/time_${round}_$b.log | cut -c1-130
    done
  done
}
px_sass() {
  cuobjdump -sass -fun "$1" $L/fused_conv_lab > $R/sass.txt 2>&1
  echo "SASS lines $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $R/sass.txt), HGMMA $(grep -c HGMMA $R/sass.txt), LDSM $(grep -c 'LDSM' $R/sass.txt), STS $(grep -c 'STS' $R/sass.txt), LDG $(grep -c 'LDG' $R/sass.txt), SHFL $(grep -c SHFL $R/sass.txt), WARPSYNC/ARRIVE $(grep -cE 'WARPGROUP|ARRIVE' $R/sass.txt)"
}
px_conv2_times() {
  local shape=${2:-conv2}
  for round in 1 2; do
    for b in 10000 1000 1; do
      $L/fused_conv_lab --filter "$1" --shape $shape --no-validate --batch $b > $R/time_${round}_$b.log 2>&1
      grep -E "$shape" $R/time_${round}_$b.log | cut -c1-130
    done
  done
}
px_ncu() {
  local sections=()
  for s in $2; do sections+=(--section "$s"); done
  for cfg in $1; do
    timeout 100 ncu --clock-control none -k regex:wgmma_pixels --launch-skip 3 --launch-count 1 "${sections[@]}" \
      $L/fused_conv_lab --filter "wgpx_bf16 $cfg bf16->bf16" --shape conv2 --no-validate --batch 10000 \
      > $R/ncu_$cfg.txt 2>&1
    echo "ncu $cfg exit $?"
    grep -E "Duration|L1/TEX Cache Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Instructions  |bank conflict" $R/ncu_$cfg.txt | head -12
  done
}
