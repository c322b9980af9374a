#!/usr/bin/env bash
# Third call: staging by pixel pairs (call_b's ncu: the 8-column units' 16-byte stores at a 64-byte stride were
# 15.9-way bank conflicts, 4.5 M of 30.8 M shared wavefronts), every unit of an item loaded into registers under the
# previous item's products, the weights' descriptor kept in a register and no division per tile for one column block.
# Lab built here, carried as .device/lab: checks and the three sanitizers, conv2 in bf16 at 10000, 1000 and 1 (two
# rounds, same process), ncu of one conv2 launch at 10000 for the two shipped configurations.
source tools/results/h200/device_env.sh
source tools/results/h200/conv_wgmma_pixels/common.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  px_lab_checks
  px_conv2_times "wgpx_bf16|wg_bf16 wg_m64n64_s1 bf16->bf16|shr_bf16 stk_w4_n4_px1024 bf16->bf16"
  px_sass "$PX_KERNEL"
  px_ncu "wgpx_1wg wgpx_2wg" "SpeedOfLight Occupancy WarpStateStats SchedulerStats MemoryWorkloadAnalysis InstructionStats"
}
timeout 590 bash -c "$(declare -f work px_lab_checks px_conv2_times px_sass px_ncu); R=$R L=$L PX_KERNEL=$PX_KERNEL; work" 2>&1 | tee $R/call_c.log
cd $OUT && tar czf r.tgz r && rm -rf r
