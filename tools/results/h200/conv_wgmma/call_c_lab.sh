#!/usr/bin/env bash
# The lab part of call_c alone (the engine's build not ready yet): the one-buffer configuration (wg_m64n64_s1, 3
# CTAs per SM) beside the two-buffer one and the shared-rows kernel, conv2 at 10000, 1000, 100 and 1, two rounds.
source tools/results/h200/device_env.sh
source tools/results/h200/conv_wgmma/common.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  wg_lab_times "10000 1000 100 1"
}
timeout 590 bash -c "$(declare -f work wg_lab_times); R=$R L=$L; work" 2>&1 | tee $R/call_c_lab.log
cd $OUT && tar czf r.tgz r && rm -rf r
