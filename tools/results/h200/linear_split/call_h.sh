#!/usr/bin/env bash
# Eighth call (one H200, call_g's build): with the split Linear, do the attentions' q, k, v projections still pay as
# part of ie.Attention (FFMA inside the attention kernel) in fp32? The SSA's fp32 bench with the projections joined
# (default) and apart (IE_DISABLE_FUSIONS=attention_projection: three split Linears and the attention kernel), two
# rounds alternating; the per-op profile at 65536 apart. Results in r.tgz.
source tools/results/h200/device_env.sh
for round in 1 2; do
  for c in joined apart; do
    dis=; [[ $c == apart ]] && dis=attention_projection
    IE_DISABLE_FUSIONS=$dis timeout 80 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 \
      --batches 1,32,512,4096,65536 --duration-ms 150 --json $R/bench_ssa_fp32_${c}_$round.json \
      > $R/bench_ssa_fp32_${c}_$round.log 2>&1
    echo "bench fp32 $c round $round exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32_${c}_$round.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
  done
done
IE_DISABLE_FUSIONS=attention_projection timeout 40 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 \
  --batches 65536 --profile > $R/profile_ssa_65536_cuda_fp32_apart.txt 2>&1
echo "profile apart exit $?: $(grep -E '^total' $R/profile_ssa_65536_cuda_fp32_apart.txt)"
grep -E "Attention|q/MatMul|k/MatMul|v/MatMul" $R/profile_ssa_65536_cuda_fp32_apart.txt | cut -c1-150
cd $OUT && tar czf r.tgz r && rm -rf r
