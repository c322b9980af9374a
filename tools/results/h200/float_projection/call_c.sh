#!/usr/bin/env bash
# Third call: the attention GPU tests after the decline test became a plan-level test on the SSA itself (fp16/bf16
# past 32768 rows run the projections unfused in 16 bits; fp32/tf32 keep them joined).
source tools/results/h200/device_env.sh
$B/gpu_tests --no-version -tc="*Attention*,*attention*" > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
cd $OUT && tar czf r.tgz r && rm -rf r
