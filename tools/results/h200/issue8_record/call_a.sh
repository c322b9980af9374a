#!/usr/bin/env bash
# The conv net's record in one run of tools/gpu_run.sh (one H200): compare against the CPU for both models, both
# export forms and every precision mode; the conv net's bench table (cuda against cuda-reference, batch 1 to 50000,
# every mode) with the per-op profiles at 10000; PyTorch on the same GPU; the conv net's kernel labs (built on the
# machine from the call's start, in the background on a few CPU cores, and run last).
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
BENCH_MODELS=convnet LABS="fused_conv_lab conv_poolm_lab conv_pair_lab head_chain_lab resize_lab" \
  timeout 585 bash tools/gpu_run.sh $OUT/final .device/build models,bench,torch,labs > $OUT/final.log 2>&1
echo "gpu_run exit $?"
grep -vE "warning" $OUT/final/summary.txt | cut -c1-220
cd $OUT && tar czf r.tgz r final final.log && rm -rf r final final.log
