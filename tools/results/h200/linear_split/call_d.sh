#!/usr/bin/env bash
# Fourth call (one H200): where the split Linear's (v1) cycles go: ncu's warp-state samples (every stall reason, the
# finest sampling) of one launch on q 64->64, proj 64->64 + residual and fc1 64->128 + GELU at 655,360 rows, and the
# executed instructions and stall samples per source line of q (tests/kernels/profile_lines.sh).
source tools/results/h200/device_env.sh
srcs="layers/sample_resident/row_tile_builder.cpp layers/sample_resident/sample_resident_builder.cpp"
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -I. tests/kernels/linear_split_lab.cu $srcs \
  -o $OUT/lab > $R/build.log 2>&1 || { tail $R/build.log; exit 1; }
m=$(for r in wait long_scoreboard short_scoreboard barrier selected not_selected no_instructions imc_miss \
  branch_resolving dispatch_stall math_pipe_throttle mio_throttle lg_throttle tex_throttle membar sleeping drain misc; do
  printf "smsp__pcsamp_warps_issue_stalled_%s," $r; done)
m="${m}smsp__inst_executed.sum,smsp__cycles_active.avg,sm__cycles_elapsed.max"
for f in "q 64" "proj" "fc1"; do
  name=${f// /_}
  timeout 100 ncu --clock-control none --warp-sampling-interval 0 -k regex:linear_split_kernel --launch-skip 5 -c 1 \
    --metrics "$m" $OUT/lab --no-validate --filter "$f" > $R/ncu_$name.txt 2>&1
  echo "== ncu $f exit $?"
  grep -E "pcsamp|inst_executed|cycles" $R/ncu_$name.txt | sed -E 's/smsp__pcsamp_warps_issue_stalled_//' | \
    awk '{print $1, $NF}' | sort -k2 -n -r | head -12 | tr '\n' ';'; echo
done
LAB_BIN=$OUT/lab NCU_ARGS="--launch-skip 5" timeout 200 bash tests/kernels/profile_lines.sh tests/kernels/linear_split_lab.cu \
  linear_split_kernelILi4ELi4E --no-validate --filter "q 64" > $R/lines_q.txt 2>&1
echo "lines exit $?"; head -45 $R/lines_q.txt | cut -c1-170
rm -f $OUT/lab
