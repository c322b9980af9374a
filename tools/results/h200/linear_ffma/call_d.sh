#!/usr/bin/env bash
# Where the FFMA Linear's GELU product starts to win: the SSA's fp32 per-op profile at 1024 .. 16384 samples
# (10,240 .. 163,840 rows; BATCHES=... others) with every product on FFMA (IE_LINEAR_FP32=ffma) and on cuBLASLt (=cublas).
source tools/results/h200/device_env.sh
for b in ${BATCHES:-1024 2048 4096 8192 16384}; do
  for v in ffma cublas; do
    IE_LINEAR_FP32=$v $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches $b --profile \
      --duration-ms 200 > $R/profile_ssa_${b}_$v.log 2>&1
    echo "$b $v: $(grep -E 'fc1/MatM' $R/profile_ssa_${b}_$v.log | awk '{for(i=1;i<=NF;i++) if ($i ~ /^[0-9]+\.[0-9]+$/) {print $i; break}}' | tr '\n' ' ')"
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
