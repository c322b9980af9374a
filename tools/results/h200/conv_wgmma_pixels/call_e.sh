#!/usr/bin/env bash
# Fifth call: the engine with the wgmma pixels-on-M kernel first in the heuristic's order for 16-bit second
# convolutions (the staged build carried as .device/build.tgz): every GPU test, the new test and the NaN test under
# memcheck, racecheck and synccheck, the conv net's bench in bf16 and fp16 (two rounds, the tuner's records), the
# per-op profile at 10000 in bf16, compare against the CPU on both exports in bf16 and fp16.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
source tools/results/h200/conv_wgmma/common.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  wg_engine_checks 2 "*wgmma pixels-on-M*,*keeps NaN*"
}
timeout 590 bash -c "$(declare -f work wg_engine_checks bench_convnet_16bit compare_forms); B=$B R=$R D=$D; work" 2>&1 | tee $R/call_e.log
cd $OUT && tar czf r.tgz r && rm -rf r
