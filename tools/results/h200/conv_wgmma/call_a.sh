#!/usr/bin/env bash
# First call of the warpgroup-MMA conv kernel (layers/fused_conv/fused_conv_wgmma.cuh), lab only: the lab's
# validation of the wgmma runs and of the shared-rows runs beside them (odd shapes, bf16 and fp16), conv2 at batch
# 10000 and 1000 for both in the same process; the wgmma runs under memcheck, racecheck and synccheck at batches
# up to 7; its SASS (HGMMA present, instruction counts) and one ncu launch of it at 10000.
source tools/results/h200/device_env.sh
source tools/results/h200/conv_wgmma/common.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  wg_lab_first_calls "wg_bf16 wg_m64n64 bf16->bf16|shr_bf16 w4_n4_px1024 bf16->bf16|wg_f16|shr_f16 w4_n4_px1024 f16" \
    "SpeedOfLight Occupancy WarpStateStats LaunchStats"
}
timeout 590 bash -c "$(declare -f work wg_lab_first_calls); B=$B R=$R L=$L; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
