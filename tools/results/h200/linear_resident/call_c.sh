#!/usr/bin/env bash
# Third call: where the SSA's batch-1 latency goes on the row-tile kernel (bf16): the lab's rtlat (each CTA shape at
# batch 1, each stage left out in turn, an empty launch for the launch's share), ncu's warp states and the per-line
# stall samples of the one busy warp (4 x 1); and the FFMA lab's two best forms with their shared-memory wavefronts.
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -I. tests/kernels/sample_resident_lab.cu \
  layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp -o /tmp/sr_lab > $R/sr_build.log 2>&1 &
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -I. tests/kernels/linear_resident_lab.cu \
  -o /tmp/linear_resident_lab > $R/lr_build.log 2>&1
for k in 'regex:linear_ffma_kernel' 'regex:Li64ELi0ELb0ELi4E'; do
  timeout 120 ncu --clock-control none --kernel-name-base mangled -k "$k" -s 5 -c 1 \
    --metrics smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    /tmp/linear_resident_lab --no-validate --filter "655360 q 64->64" > $R/ncu_lr_${k#regex:}.txt 2>&1
  echo "== ncu $k"; grep -E "inst_executed|wavefronts|bank_conflicts|duration|warps_active|cycles_active" $R/ncu_lr_${k#regex:}.txt | head -12
  grep -E "issue_stalled" $R/ncu_lr_${k#regex:}.txt | awk '$NF+0 > 0.2' | head -12
done
wait
timeout 200 /tmp/sr_lab rtlat > $R/rtlat.log 2>&1; echo "rtlat exit $?"; cat $R/rtlat.log | cut -c1-120
timeout 120 ncu --clock-control none --kernel-name-base mangled -k regex:row_tile_kernel -s 20 -c 1 --section WarpStateStats \
  --section SchedulerStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,gpu__time_duration.sum \
  /tmp/sr_lab rtone 41 1 > $R/ncu_rt41_b1.txt 2>&1
grep -E "duration|Issued Instruction|Eligible" $R/ncu_rt41_b1.txt; grep -E "issue_stalled" $R/ncu_rt41_b1.txt | awk '$NF+0 > 0.1'
PYTHON=$TORCH_PYTHON LAB_BIN=/tmp/sr_lab timeout 200 bash tests/kernels/profile_lines.sh tests/kernels/sample_resident_lab.cu \
  row_tile_kernelI13__nv_bfloat16Li64ELi16ELi1ELi384E rtone 41 1 > $R/lines_rt41_b1.txt 2>&1
echo "lines exit $?"; head -45 $R/lines_rt41_b1.txt | cut -c1-160
cd $OUT && tar czf r.tgz r && rm -rf r
