#!/usr/bin/env bash
# Second call, after the float32 projected kernel declined in the fp16/bf16 modes (the planner had widened a node
# the 16-bit kernels decline to it, call_a's one failure): the attention, SSA, sample-resident and precision-mode
# GPU tests, then the bench table of every mode on both models, cuda against cuda-reference and PyTorch in the same
# call, with the per-op profiles (tools/gpu_run.sh ... bench,torch).
source tools/results/h200/device_env.sh
$B/gpu_tests --no-version -tc="*Attention*,*SSA*,*sample-resident*,*precision mode*,*classifier head*,*too wide*" \
  > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -30
timeout 480 bash tools/gpu_run.sh $OUT/final .device/build bench,torch > $OUT/final.log 2>&1
echo "gpu_run exit $?"
grep -vE "warning" $OUT/final/summary.txt | cut -c1-200
cd $OUT && tar czf r.tgz r final final.log && rm -rf r final final.log
