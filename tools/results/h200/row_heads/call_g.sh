#!/usr/bin/env bash
# Seventh call (one H200): why batch 1's stages cost what they cost. ncu's warp-state samples (every stall reason,
# the finest sampling interval) and issue statistics of one launch of the warp-group kernel (4041) and of the 4 x 1
# kernel at batch 1, and of the 8 x 2 kernel at 65536 for comparison: is it instruction fetch (each stage's code
# runs once a launch at batch 1)?
source tools/results/h200/device_env.sh
srcs="layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -I. tests/kernels/sample_resident_lab.cu $srcs \
  -o $OUT/lab > $R/build.log 2>&1 || { tail $R/build.log; exit 1; }
m=$(for r in wait long_scoreboard short_scoreboard barrier selected not_selected no_instructions imc_miss \
  branch_resolving dispatch_stall math_pipe_throttle mio_throttle lg_throttle membar sleeping drain misc; do
  printf "smsp__pcsamp_warps_issue_stalled_%s," $r; done)
m="${m}smsp__inst_executed.sum,smsp__cycles_active.avg,sm__cycles_elapsed.max"
for run in "row_heads_kernelI13__nv_bfloat16 4041 1" "row_tile_kernelI13__nv_bfloat16Li64ELi16ELi1ELi384 41 1" \
           "row_tile_kernelI13__nv_bfloat16Li64ELi16ELi2ELi256 82 65536"; do
  set -- $run
  timeout 100 ncu --clock-control none --warp-sampling-interval 0 --kernel-name-base mangled -k "regex:$1" -c 1 \
    --metrics "$m" $OUT/lab rtone $2 $3 > $R/ncu_$2_$3.txt 2>&1
  echo "== ncu cfg $2 batch $3 exit $?"
  grep -E "pcsamp|inst_executed|cycles" $R/ncu_$2_$3.txt | sed -E 's/smsp__pcsamp_warps_issue_stalled_//' | \
    awk '{print $1, $NF}' | sort -k2 -n -r | head -20 | tr '\n' ';'; echo
done
rm -f $OUT/lab
