#!/usr/bin/env bash
# Eighth call (one H200): the fused convolution's GPU tests after the shared-rows cases became one list for fp16/bf16
# and tf32's split products.
source tools/results/h200/device_env.sh
$B/gpu_tests --no-version -tc="*FusedConv*" > $OUT/gpu_tests_fused_conv.log 2>&1
echo "gpu_tests FusedConv exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $OUT/gpu_tests_fused_conv.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $OUT/gpu_tests_fused_conv.log | grep -v MESSAGE | head -30
