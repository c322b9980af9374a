#!/usr/bin/env bash
# Session call 9 (one GPU): the final build after the CTA shapes moved to host code (row_tile_cta.h): GPU tests and
# the SSA's bench in bf16 (the shape choice unchanged).
source tools/results/h200/device_env.sh
work() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
$B/bench --config configs/ssa.yaml --paths cuda --precision bf16 --batches 1,32,512,4096,65536 --duration-ms 400 \
  > $R/bench_ssa_bf16.log 2>&1
echo "bench exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_ssa_bf16.log | cut -c1-40
}
timeout 300 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call_i.log
cd $OUT && tar czf r.tgz r && rm -rf r
