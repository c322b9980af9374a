#!/usr/bin/env bash
# Eighth call (data for the conv net's batch-1 target, no change): the classifier-head kernel at batch 1 in its lab
# (tests/kernels/head_chain_lab.cu, head8 b1): ncu's device duration and warp states of a warm launch (caches and
# clocks left alone), and the per-line executed instructions and stall samples of one launch (the call ran the
# lines step with "head_kernel", which matched two instantiations; lines_head_b1.txt is its rerun on the warm
# machine with the name below).
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -I. tests/kernels/head_chain_lab.cu \
  layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/head_builder.cpp -o /tmp/head_lab > $R/build.log 2>&1
timeout 60 /tmp/head_lab --no-validate --filter "head8 b1" > $R/time.log 2>&1; echo "lab exit $?"; grep -E "head8 b1 " $R/time.log
timeout 90 ncu --cache-control none --clock-control none -k regex:head_kernel -s 10 -c 1 --section WarpStateStats \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
  /tmp/head_lab --no-validate --filter "head8 b1" > $R/ncu_head_b1.txt 2>&1
echo "ncu exit $?"; grep -E "duration|inst_executed.sum|Issued Instruction" $R/ncu_head_b1.txt; grep -E "issue_stalled" $R/ncu_head_b1.txt | awk '$NF+0 > 0.3'
PYTHON=$TORCH_PYTHON LAB_BIN=/tmp/head_lab timeout 120 bash tests/kernels/profile_lines.sh tests/kernels/head_chain_lab.cu \
  head_kernelI13__nv_bfloat16Li8E --no-validate --filter "head8 b1" > $R/lines_head_b1.txt 2>&1
echo "lines exit $?"; head -24 $R/lines_head_b1.txt | cut -c1-150
cd $OUT && tar czf r.tgz r && rm -rf r
