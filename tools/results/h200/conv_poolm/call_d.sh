#!/usr/bin/env bash
# Fourth call, the engine with the pool-on-M kernel among the fused conv's tuned candidates: the conv net's bench in
# bf16 and fp16 (two rounds; the tuner times every candidate on the fresh machine), the tuning records it kept,
# its kernels' device durations inside the batch-1 graph replays, compare against the CPU, then the GPU tests and
# the pool-on-M and NaN tests under memcheck, racecheck and synccheck.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  bench_convnet_16bit 2
  find "$HOME" /tmp -name "tuning-*.json" 2>/dev/null | head -3 > $R/tuning_files.txt
  for f in $(cat $R/tuning_files.txt); do cp "$f" $R/; grep -o '"config": *"[a-z0-9_]*"' "$f" | sort | uniq -c; done
  timeout 90 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum -k regex:. --launch-skip 60 \
    --launch-count 9 $B/bench --config configs/convnet.yaml --paths cuda --precision bf16 --batches 1 --warmup 30 \
    --iterations 30 > $R/ncu_convnet_b1.txt 2>&1
  echo "ncu convnet b1 exit $?"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $R/ncu_convnet_b1.txt | sed 's/(int, int, int).*//' | cut -c1-110 | head -20
  compare_forms convnet "bf16 fp16"
  sr_gpu_checks 'cuda FusedConv: every pool-on-M*,cuda FusedConv keeps NaN*' poolm
}
timeout 590 bash -c "$(declare -f work sr_gpu_checks compare_forms bench_convnet_16bit); B=$B R=$R; work" 2>&1 | tee $R/call_d.log
cd $OUT && tar czf r.tgz r && rm -rf r
