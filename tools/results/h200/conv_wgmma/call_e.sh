#!/usr/bin/env bash
# Fifth call: the wgmma test with its identity convolution left without an activation (the build of call_d
# otherwise): every GPU test, the wgmma test and the NaN test under memcheck, racecheck and synccheck.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  sr_gpu_checks "*warpgroup-MMA*,*keeps NaN*" wg
}
timeout 590 bash -c "$(declare -f work sr_gpu_checks); B=$B R=$R D=$D; work" 2>&1 | tee $R/call_e.log
cd $OUT && tar czf r.tgz r && rm -rf r
