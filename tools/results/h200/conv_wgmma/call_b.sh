#!/usr/bin/env bash
# Second call: the epilogue split across the lanes of a pool window (reduce-scatter shuffles, one store per lane and
# value), descriptors by adding offsets, no k-step branches; otherwise as call_a (validation, timings against the
# shared-rows kernel in the same process, sanitizers, SASS, one ncu launch).

source tools/results/h200/device_env.sh
source tools/results/h200/conv_wgmma/common.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  wg_lab_first_calls "wg_bf16 wg_m64n64 bf16->bf16|shr_bf16 stk_w4_n4_px1024 bf16->bf16|wg_f16|shr_f16 stk_w4_n4_px1024 f16->f16" \
    "SpeedOfLight Occupancy WarpStateStats LaunchStats InstructionStats"
}
timeout 590 bash -c "$(declare -f work wg_lab_first_calls); B=$B R=$R L=$L; work" 2>&1 | tee $R/call_b.log
cd $OUT && tar czf r.tgz r && rm -rf r
