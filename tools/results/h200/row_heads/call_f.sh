#!/usr/bin/env bash
# Sixth call (one H200): the final tree: every GPU test; the SSA's bench in bf16 and fp16 (cuda) beside PyTorch
# eager in the same call (tools/torch_bench.py, the conv net at batch 1 only); the bf16 per-op profiles at 1, 512
# and 65536 (one step each). Needs .device/build.tgz (tools/stage_device_build.sh). Results stay as files (what a
# call cut by its limit leaves comes back).
source tools/results/h200/device_env.sh
timeout 230 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -10
for p in bf16 fp16; do
  timeout 80 $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,32,512,4096,65536 \
    --duration-ms 150 --json $R/bench_ssa_$p.json > $R/bench_ssa_$p.log 2>&1
  echo "bench $p exit $?"; grep -E "^ +[0-9]+ \|" $R/bench_ssa_$p.log | cut -c1-60
done
timeout 120 "$TORCH_PYTHON" tools/torch_bench.py --out-dir $R --batches-convnet 1 --batches-ssa 1,32,512,4096,65536 \
  > $R/torch_bench.log 2>&1
echo "torch_bench exit $?"; grep -E "ssa.*samples/s" $R/torch_bench.log
for b in 1 512 65536; do
  timeout 30 $B/bench --config configs/ssa.yaml --paths cuda --precision bf16 --batches $b --profile \
    > $R/profile_ssa_${b}_cuda_bf16.txt 2>&1
  echo "profile $b exit $?: $(grep -E '^total' $R/profile_ssa_${b}_cuda_bf16.txt)"
done
