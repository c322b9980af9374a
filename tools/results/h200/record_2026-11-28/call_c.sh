#!/usr/bin/env bash
# The SSA's record in one call (one H200): compare in every mode and both export forms for both models, the
# bench table (cuda against cuda-reference, fp32/tf32/fp16/bf16, batch 1 to 65536), the per-op profiles at 512 and
# 65536, PyTorch in the same call, and the LayerNorm (with LN+GELU), attention and linear labs' timing tables
# (their checks: earlier calls, and the GPU tests for the kernels the engine ships); fitted to the session's device
# time left (355 s).
# Needs .device/build.tgz (tools/stage_device_build.sh) and .device/data.
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
BENCH_MODELS=ssa BENCH_BATCHES_SSA=1,32,512,4096,65536 BENCH_MS=200 LAB_ARGS=--no-validate LAB_TIMEOUT=60 \
  LABS="layer_norm_lab attention_lab linear_lab" \
  timeout 355 bash tools/gpu_run.sh $OUT/final .device/build models,bench,torch,labs > $OUT/final.log 2>&1
echo "gpu_run exit $?"
grep -vE "warning" $OUT/final/summary.txt | grep -vE "^ +[0-9]+ \|" | cut -c1-200
cd $OUT && tar czf r.tgz final final.log && rm -rf final final.log
