#!/usr/bin/env bash
# The conv net's record in one call (one H200): compare in every mode and both export forms for both models, the
# bench table (cuda against cuda-reference, fp32/tf32/fp16/bf16, batch 1 to 50000), the per-op profiles at 10000,
# PyTorch in the same call, and the conv kernel labs' timing tables (their checks: earlier calls, and the GPU
# tests for the kernels the engine ships). Needs .device/build.tgz (tools/stage_device_build.sh) and .device/data.
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
BENCH_MODELS=convnet BENCH_MS=300 LAB_ARGS=--no-validate LAB_TIMEOUT=120 \
  LABS="fused_conv_lab conv_poolm_lab head_chain_lab conv_pair_lab resize_lab" \
  timeout 570 bash tools/gpu_run.sh $OUT/final .device/build models,bench,torch,labs > $OUT/final.log 2>&1
echo "gpu_run exit $?"
grep -vE "warning" $OUT/final/summary.txt | grep -vE "^ +[0-9]+ \|" | cut -c1-200
cd $OUT && tar czf r.tgz final final.log && rm -rf final final.log
