#!/usr/bin/env bash
# Second call: the k-steps of a tile in two groups (each group's A loads under the products before it, the next
# tile's first group under this tile's last products) against call_a's one group (wgpx_*_g1), and a barrier after the
# buffers' zeroing (call_a's racecheck: the zeroing raced the first staging stores). Lab built here, carried as
# .device/lab; and the same tiles on mma.sync per warp with the weights in registers (wgpx_sync_*): checks and the three
# sanitizers, conv2 in bf16 at 10000, 1000 and 1 (two rounds, same process),
# the SASS of conv2's instantiation, and ncu (full set) of one conv2 launch at 10000.
source tools/results/h200/device_env.sh
source tools/results/h200/conv_wgmma_pixels/common.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  px_lab_checks
  px_conv2_times "wgpx_bf16|wg_bf16 wg_m64n64_s1 bf16->bf16"
  px_sass "$PX_KERNEL"
  timeout 200 ncu --clock-control none -k regex:wgmma_pixels --launch-skip 3 --launch-count 1 --set full \
    $L/fused_conv_lab --filter "wgpx_bf16 wgpx_1wg bf16->bf16" --shape conv2 --no-validate --batch 10000 > $R/ncu.txt 2>&1
  echo "ncu exit $?"
  timeout 100 ncu --clock-control none -k regex:wgmma_pixels --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    $L/fused_conv_lab --filter "wgpx_bf16 wgpx_sync_w4 bf16->bf16" --shape conv2 --no-validate --batch 10000 \
    > $R/ncu_sync.txt 2>&1
  echo "ncu sync exit $?"
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Issue Slots Busy|Block Limit|Shared Memory|Bank|Tensor|Stall|Executed Ipc" $R/ncu.txt | head -50
}
timeout 590 bash -c "$(declare -f work px_lab_checks px_conv2_times px_sass); R=$R L=$L PX_KERNEL=$PX_KERNEL; work" 2>&1 | tee $R/call_b.log
cd $OUT && tar czf r.tgz r && rm -rf r
