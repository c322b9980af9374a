#!/usr/bin/env bash
# Seventh call (data for the batch-1 targets, no change): the conv net and the SSA at batch 1 in bf16 on the final
# build: bench with the per-op profile, then ncu's device duration of each kernel inside the CUDA-graph replays
# (how much of the bench's figure is kernels and how much the gaps between them), caches and clocks left as they are.
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
for m in convnet ssa; do
  timeout 60 $B/bench --config configs/$m.yaml --paths cuda --precision bf16 --batches 1 --profile \
    > $R/bench_${m}_b1.log 2>&1
  echo "bench $m exit $?: $(grep -E '^ +1 \|' $R/bench_${m}_b1.log | cut -c1-60)"
  grep -E "^[0-9]+ +/" $R/bench_${m}_b1.log | awk '{print $2, $(NF-8)}' | head -8
  timeout 90 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum -k regex:. --launch-skip 60 --launch-count 9 \
    $B/bench --config configs/$m.yaml --paths cuda --precision bf16 --batches 1 --warmup 30 --iterations 30 \
    > $R/ncu_${m}_b1.txt 2>&1
  echo "ncu $m exit $?"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $R/ncu_${m}_b1.txt | sed 's/(int, int, int).*//' | cut -c1-110 | head -20
done
cd $OUT && tar czf r.tgz r && rm -rf r
