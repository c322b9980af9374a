#!/usr/bin/env bash
# The lab part of call_c alone (the engine's build not ready yet): the one-buffer configuration (wg_m64n64_s1, 3
# CTAs per SM) beside the two-buffer one and the shared-rows kernel, conv2 at 10000, 1000, 100 and 1, two rounds.
source tools/results/h200/device_env.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $L/fused_conv_lab --filter "wg_" --check-only > $R/check.log 2>&1
  echo "lab check exit $?: $(grep -c '^PASS' $R/check.log) PASS, $(grep -c '^FAIL' $R/check.log) FAIL"
  for round in 1 2; do
    for b in 10000 1000 100 1; do
      $L/fused_conv_lab --filter "wg_bf16 wg_m64n64 bf16->bf16|wg_bf16 wg_m64n64_s1 bf16->bf16|shr_bf16 stk_w4_n4_px1024 bf16->bf16|shr_bf16 stk_w4_n4_px512 bf16->bf16" \
        --no-validate --batch $b > $R/time_${round}_$b.log 2>&1
      grep -E "conv2" $R/time_${round}_$b.log | cut -c1-110
    done
  done
}
timeout 590 bash -c "$(declare -f work); R=$R L=$L; work" 2>&1 | tee $R/call_c_lab.log
cd $OUT && tar czf r.tgz r && rm -rf r
