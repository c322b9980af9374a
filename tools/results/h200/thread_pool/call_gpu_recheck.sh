#!/usr/bin/env bash
# After the persistent launch was shared by the stacked and ldsm kernels (launch_persistent): the fused conv GPU
# tests, the conv lab's validation, and the conv net's bench at 10000 in bf16.
source tools/results/h200/device_env.sh
{
nvidia-smi --query-gpu=name --format=csv,noheader
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
.device/labs/fused_conv_lab --check-only > $R/lab_validate.log 2>&1
echo "lab validation exit $?: $(grep -c '^PASS' $R/lab_validate.log) PASS, $(grep -c '^FAIL' $R/lab_validate.log) FAIL"
$B/bench --config configs/convnet.yaml --paths cuda --precision bf16 --batches 10000 --duration-ms 500 > $R/bench_convnet_bf16.log 2>&1
grep -E "^ +10000" $R/bench_convnet_bf16.log | head -1
} 2>&1 | tee $R/call.log
cd $OUT && tar czf r.tgz r && rm -rf r
