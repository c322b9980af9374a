#!/usr/bin/env bash
# Fifth call, the final build (the row-tile kernel's weight stages by bulk copy, the CTA-shape figures of call_d):
# bench of the SSA in bf16 and fp16, two rounds, PyTorch in the same call; the GPU tests; the sample-resident tests
# under memcheck, racecheck and synccheck; compare against the CPU (both exports, both modes, seeds 7 and 8).
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  bench_ssa_16bit 2
  sr_gpu_checks
  compare_ssa_16bit
  mkdir -p $R/torch
  "$TORCH_PYTHON" tools/torch_bench.py --out-dir $R/torch --batches-convnet 1 --batches-ssa 1,32,512,4096,65536 \
    > $R/torch_bench.log 2>&1
  echo "torch_bench exit $?"; grep -E "^ssa" $R/torch_bench.log
}
timeout 580 bash -c "$(declare -f work bench_ssa_16bit sr_gpu_checks compare_ssa_16bit); B=$B R=$R; work" 2>&1 | tee $R/call_e.log
cd $OUT && tar czf r.tgz r && rm -rf r
