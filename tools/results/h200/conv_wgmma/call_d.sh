#!/usr/bin/env bash
# Fourth call: the kernel with per-item offsets precomputed and the descriptors built once per buffer; the lab
# (wgmma checks; conv2 against the shared-rows kernel at 10000, 1000, 1, two rounds), then the engine: every GPU test, the wgmma test under memcheck, racecheck and synccheck, the conv
# net's bench in bf16 and fp16 (batches 1 to 10000, the tuner's records: which kernel conv2 got per batch), the
# per-op profile at 10000 in bf16, compare against the CPU on both exports in bf16 and fp16.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
source tools/results/h200/conv_wgmma/common.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  wg_lab_times "10000 1000 1"
  wg_engine_checks 2 "*warpgroup-MMA*"
}
timeout 590 bash -c "$(declare -f work wg_lab_times wg_engine_checks bench_convnet_16bit compare_forms); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_d.log
cd $OUT && tar czf r.tgz r && rm -rf r
