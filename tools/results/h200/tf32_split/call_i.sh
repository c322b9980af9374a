#!/usr/bin/env bash
# Ninth call (one H200): the review mend (operand_words for every staging, the shared-rows gate): the fused
# convolution's GPU tests, the precision-mode gates, and the conv net's tf32 and bf16 bench at 10000.
source tools/results/h200/device_env.sh
$B/gpu_tests --no-version -tc="*FusedConv*,*precision mode*,*every precision*" > $OUT/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $OUT/gpu_tests.log | tr '\n' ' ')"
for p in tf32 bf16; do
  $B/bench --config configs/convnet.yaml --paths cuda --precision $p --batches 1,10000 --duration-ms 300 \
    > $OUT/bench_convnet_$p.log 2>&1
  echo "bench $p exit $?: $(grep -E '^ +[0-9]+ \|' $OUT/bench_convnet_$p.log | cut -c1-40 | tr '\n' ' ')"
done
