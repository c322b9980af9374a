#!/usr/bin/env bash
# Sourced by this folder's call scripts on the GPU machine (after device_env.sh and sr_checks.sh, from the
# repository root; L the lab binary, B the staged build, R the results):
#   wg_lab_first_calls "TIMING FILTER" "NCU SECTIONS" (call_a, call_b: the wgmma and shared-rows checks, two timing
#     rounds at the lab's batches, the wgmma runs under the sanitizers, the SASS of conv2's kernel, one ncu launch),
#   wg_lab_times "BATCHES" (the wgmma configurations against the shared-rows kernel, two rounds per batch),
#   wg_engine_checks ROUNDS "SANITIZED TESTS" (every GPU test, the named tests under memcheck, racecheck and
#     synccheck, the conv net's bench in bf16 and fp16 ROUNDS times with the tuner's records, the per-op profile at
#     10000 in bf16, compare against the CPU on both exports in bf16 and fp16).
wg_lab_first_calls() {
  $L/fused_conv_lab --filter "wg_|shr_bf16|shr_f16" --check-only > $R/check.log 2>&1
  echo "check exit $?: $(grep -c '^PASS' $R/check.log) PASS, $(grep -c '^FAIL' $R/check.log) FAIL"
  grep -E "^(PASS|FAIL)  wg" $R/check.log | cut -c1-200 | head -40
  for round in 1 2; do
    $L/fused_conv_lab --filter "$1" --no-validate > $R/time_$round.log 2>&1
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
  local sections=()
  for s in $2; do sections+=(--section "$s"); done
  timeout 120 ncu --clock-control none -k regex:wgmma --launch-skip 5 --launch-count 1 "${sections[@]}" \
    $L/fused_conv_lab --filter "wg_bf16 wg_m64n64 bf16->bf16" --no-validate --batch 10000 > $R/ncu_wg.txt 2>&1
  echo "ncu exit $?"; grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued" $R/ncu_wg.txt | head -20
}
wg_lab_times() {
  $L/fused_conv_lab --filter "wg_" --check-only > $R/check.log 2>&1
  echo "lab check exit $?: $(grep -c '^PASS' $R/check.log) PASS, $(grep -c '^FAIL' $R/check.log) FAIL"
  for round in 1 2; do
    for b in $1; do
      $L/fused_conv_lab --filter "wg_bf16 wg_m64n64 bf16->bf16|wg_bf16 wg_m64n64_s1 bf16->bf16|shr_bf16 stk_w4_n4_px1024 bf16->bf16|shr_bf16 stk_w4_n4_px512 bf16->bf16" \
        --no-validate --batch $b > $R/time_${round}_$b.log 2>&1
      grep -E "conv2" $R/time_${round}_$b.log | cut -c1-110
    done
  done
}
wg_engine_checks() {
  rm -f ~/.cache/inferengine/tuning-*.json
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
  for tool in memcheck racecheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
      -tc="$2" > $R/gpu_tests_wg_$tool.log 2>&1
    echo "$tool ($2) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY|test cases' $R/gpu_tests_wg_$tool.log | tr '\n' ' ' | cut -c1-200)"
  done
  rm -f ~/.cache/inferengine/tuning-*.json
  bench_convnet_16bit "$1"
  grep -h '"fused_conv' ~/.cache/inferengine/tuning-*.json | grep -o '"shape":"[^"]*","value":{"config":"[a-z0-9_]*"' > $R/tuning_records.txt; cat $R/tuning_records.txt | cut -c1-160
  cp ~/.cache/inferengine/tuning-*.json $R/ 2>/dev/null
  $B/bench --config configs/convnet.yaml --paths cuda --precision bf16 --batches 10000 --profile > $R/profile_bf16_10000.txt 2>&1
  grep -E "conv[12]/Conv|^total" $R/profile_bf16_10000.txt | cut -c1-60,130-175
  compare_forms convnet "bf16 fp16"
}
