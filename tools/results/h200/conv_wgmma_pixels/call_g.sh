#!/usr/bin/env bash
# Seventh call: the wgmma column-shifts kernel for one input channel (tests/kernels/fused_conv_wgmma_shifts.cuh: conv1) in the lab
# (built here, carried as .device/lab): its checks and the three sanitizers, conv1 from float32 in bf16 at 10000, 1000
# and 1 against the stacked kernel (two rounds, same process; the engine's conv1, the pool-on-M kernel, took 0.208 ms
# at 10000 in call_f), and ncu of one conv1 launch at 10000.
source tools/results/h200/device_env.sh
source tools/results/h200/conv_wgmma_pixels/common.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  px_lab_checks wgsh_
  px_conv2_times "wgsh_|stk_bf16 stk_w5_n5_px3200 f32->bf16" conv1
  for cfg in wgsh_1wg wgsh_2wg; do
    timeout 100 ncu --clock-control none -k regex:wgmma_shifts --launch-skip 3 --launch-count 1 --section SpeedOfLight \
      --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
      --section InstructionStats $L/fused_conv_lab --filter "wgsh_bf16 $cfg f32->bf16" --shape conv1 --no-validate \
      --batch 10000 > $R/ncu_$cfg.txt 2>&1
    echo "ncu $cfg exit $?"
    grep -E "Duration|DRAM Throughput|L1/TEX Cache Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Instructions  |bank conflict" $R/ncu_$cfg.txt | head -12
  done
}
timeout 590 bash -c "$(declare -f work px_lab_checks px_conv2_times); R=$R L=$L; work" 2>&1 | tee $R/call_g.log
cd $OUT && tar czf r.tgz r && rm -rf r
