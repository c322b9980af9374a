#!/usr/bin/env bash
# Second call, the engine with the streaming LayerNorm (16-bit rows always, float rows within one wave) and the
# group shape's new tie rule: the LayerNorm lab (carried as .device/lab/ln_lab: checks, two timing rounds, the
# float rows within one wave among the targets); the GPU tests, the LayerNorm tests under memcheck, racecheck and
# synccheck; the SSA's bench in fp32 and tf32 (its LayerNorms run on these kernels there); compare cpu against cuda
# for both SSA exports in fp32 and tf32.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
source tools/results/h200/layer_norm_stream/common.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  ln_lab_rounds
  grep -E "262144x64 +gelu|1048576x320 +gelu|16384x4096 +gelu +block T256 x4|5120x64|40960x64" $R/time_1.log | cut -c1-90
  sr_gpu_checks 'cuda LayerNorm*,cuda LayerNormalization*' layer_norm
  for p in fp32 tf32; do
    $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,512,4096,65536 --duration-ms 500 \
      > $R/bench_ssa_$p.log 2>&1
    echo "bench ssa $p exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_ssa_$p.log | cut -c1-40
  done
  compare_forms ssa "fp32 tf32"
}
timeout 590 bash -c "$(declare -f work sr_gpu_checks compare_forms ln_lab_rounds); B=$B R=$R; work" 2>&1 | tee $R/call_b.log
cd $OUT && tar czf r.tgz r && rm -rf r
