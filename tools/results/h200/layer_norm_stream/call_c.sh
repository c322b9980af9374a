#!/usr/bin/env bash
# Third call, the final tree (the group kernels' shared lane helper, GroupLane, and the two-wave rule): the lab's
# checks and two timing rounds, its checks under memcheck; the GPU tests and the LayerNorm tests under memcheck,
# racecheck and synccheck; the SSA's bench in fp32 (its LayerNorms at 5120 / 40960 / 655360 rows) and compare.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
source tools/results/h200/layer_norm_stream/common.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  ln_lab_rounds
  grep -E "^(f32|bf16) .*group G[0-9]+ x[0-9] +[0-9]|block T256 x4 |block T128 x4 " $R/time_1.log | cut -c1-90
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 .device/lab/ln_lab --check-only > $R/memcheck.log 2>&1
  echo "lab memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/memcheck.log | tail -1)"
  sr_gpu_checks 'cuda LayerNorm*,cuda LayerNormalization*' layer_norm
  $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 1,512,4096,65536 --duration-ms 500 \
    > $R/bench_ssa_fp32.log 2>&1
  echo "bench ssa fp32 exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_ssa_fp32.log | cut -c1-40
  compare_forms ssa fp32
}
timeout 590 bash -c "$(declare -f work sr_gpu_checks compare_forms ln_lab_rounds); B=$B R=$R; work" 2>&1 | tee $R/call_c.log
cd $OUT && tar czf r.tgz r && rm -rf r
