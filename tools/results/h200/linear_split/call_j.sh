#!/usr/bin/env bash
# Tenth call (one H200, call_i's build): the SSA in strict fp32 and bf16 on cuda beside PyTorch eager in the same
# call (tools/torch_bench.py), for same-call ratios. Results in r.tgz.
source tools/results/h200/device_env.sh
for p in fp32 bf16; do
  timeout 80 $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,32,512,4096,65536 \
    --duration-ms 150 --json $R/bench_ssa_$p.json > $R/bench_ssa_$p.log 2>&1
  echo "bench $p exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_$p.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
done
timeout 150 "$TORCH_PYTHON" tools/torch_bench.py --out-dir $R --batches-convnet 1 --batches-ssa 1,32,512,4096,65536 \
  > $R/torch_bench.log 2>&1
echo "torch_bench exit $?"; grep -E "ssa" $R/torch_bench.log | head -20
cd $OUT && tar czf r.tgz r && rm -rf r
