#!/usr/bin/env bash
# Lab-only call (one H200): the column kernel's figures (call_lab1: conv tile epilogue; call_lab2: pooled in registers). The fused conv lab's FFMA runs (validation of the
# column and pixels-on-M FFMA kernels on odd shapes, then conv1 and conv2 at batch 10000), and ncu's view of the
# column kernel's configurations on conv1 and conv2 (issue, pipes, stalls).
source tools/results/h200/device_env.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $L/fused_conv_lab --filter "cols|ffma" --batch 10000 > $R/fcl_fp32.log 2>&1
  echo "fused conv lab (ffma, cols) exit $?: $(grep -c '^PASS' $R/fcl_fp32.log) PASS, $(grep -c '^FAIL' $R/fcl_fp32.log) FAIL"
  grep '^FAIL' $R/fcl_fp32.log | cut -c1-200 | head -8
  grep -E "^(cols|ffma) .*conv[12] " $R/fcl_fp32.log | cut -c1-150
  for cfg in cols_r16_w8 cols_r8_w4; do
    for skip in 3 58; do  # 55 launches per convolution: a warm launch of conv1, then of conv2
      timeout 100 ncu --clock-control none -k regex:columns --launch-skip $skip --launch-count 1 \
        --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
        --section InstructionStats --section MemoryWorkloadAnalysis_Tables \
        $L/fused_conv_lab --filter "$cfg" --no-validate --batch 10000 > $R/ncu_${cfg}_$skip.txt 2>&1
      echo "ncu $cfg skip $skip exit $?"
      grep -E "Duration|Compute \(SM\) Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Executed Ipc A|Bank Conflicts|Dynamic Shared" \
        $R/ncu_${cfg}_$skip.txt | cut -c1-140 | head -14
    done
  done
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R L=$L; work" 2>&1 | tee $R/call_lab1.log
cd $OUT && tar czf r.tgz r && rm -rf r
