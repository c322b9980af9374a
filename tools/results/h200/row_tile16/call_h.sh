#!/usr/bin/env bash
# Session call 8 (one GPU), the final build: the shape figures measured after the overlapped start (call_g),
# the kernel's start with the floats and first weights in flight together; bench of the SSA in bf16 and fp16, two
# rounds; the GPU tests, the sample-resident tests under memcheck, racecheck and synccheck; compare against the CPU.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  bench_ssa_16bit 2 new_
  sr_gpu_checks
  compare_ssa_16bit
}
timeout 560 bash -c "$(declare -f work bench_ssa_16bit sr_gpu_checks compare_ssa_16bit); B=$B R=$R; work" 2>&1 | tee $R/call_h.log
cd $OUT && tar czf r.tgz r && rm -rf r
