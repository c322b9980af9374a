#!/usr/bin/env bash
# First call: the wgmma pixels-on-M kernel in the lab (built here, carried as .device/lab): its checks on every lab
# shape and under the three sanitizers, conv2 in bf16 at 10000, 1000 and 1 against the wgmma weights-on-M kernel and
# the shared-rows kernel (same process, two rounds), its SASS, and one ncu launch at 10000.
source tools/results/h200/device_env.sh
source tools/results/h200/conv_wgmma_pixels/common.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  px_lab_checks
  px_lab_times "10000 1000 1" 2
  px_sass "$PX_KERNEL"
  timeout 120 ncu --clock-control none -k regex:wgmma_pixels --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis $L/fused_conv_lab --filter "wgpx_bf16 wgpx_1wg bf16->bf16" --no-validate \
    --batch 10000 > $R/ncu.txt 2>&1
  echo "ncu exit $?"; grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Issue Slots Busy|Shared Memory|Block Limit" $R/ncu.txt | head -30
}
timeout 590 bash -c "$(declare -f work px_lab_checks px_lab_times px_sass); R=$R L=$L PX_KERNEL=$PX_KERNEL; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
