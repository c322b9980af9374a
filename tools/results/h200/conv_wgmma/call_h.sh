#!/usr/bin/env bash
# Eighth call: the engine with call_g's kernel, the wgmma configurations first in the heuristic's order (the lab's
# figures are call_g's): every GPU test, the wgmma and NaN tests under memcheck, racecheck and synccheck, the conv
# net's bench in bf16 and fp16 (batches 1 to 10000, the tuner's records: which kernel conv2 got per batch), the
# per-op profile at 10000 in bf16, compare against the CPU on both exports in bf16 and fp16.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
source tools/results/h200/conv_wgmma/common.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  wg_engine_checks 2 "*warpgroup-MMA*,*keeps NaN*"
}
timeout 590 bash -c "$(declare -f work wg_engine_checks bench_convnet_16bit compare_forms); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_h.log
cd $OUT && tar czf r.tgz r && rm -rf r
