#!/usr/bin/env bash
# Second call (one H200, the same build as call_a): call_a's run cut at its time limit while the pool-on-M lab
# validated (the fused conv lab had run whole: 1378 checks and its timings). The same stages again, fitted to one
# call: bench at 300 ms a point, the labs' timing tables alone (their checks ran in call_a and earlier calls; the
# kernels the engine ships are checked by the GPU tests), labs in order of the conv net's steps' weight.
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
BENCH_MODELS=convnet BENCH_MS=300 LAB_ARGS=--no-validate \
  LABS="fused_conv_lab conv_poolm_lab head_chain_lab conv_pair_lab resize_lab" \
  timeout 555 bash tools/gpu_run.sh $OUT/final .device/build models,bench,torch,labs > $OUT/final.log 2>&1
echo "gpu_run exit $?"
grep -vE "warning" $OUT/final/summary.txt | grep -vE "^ +[0-9]+ \|" | cut -c1-200
cd $OUT && tar czf r.tgz r final final.log && rm -rf r final final.log
