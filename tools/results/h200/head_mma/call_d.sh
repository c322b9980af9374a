#!/usr/bin/env bash
# Fourth call (the build of call_c): the bench table of every mode on both models, cuda against cuda-reference and
# PyTorch in the same call, with the per-op profiles (tools/gpu_run.sh ... bench,torch).
source tools/results/h200/device_env.sh
bash tools/gpu_run.sh $OUT/final .device/build bench,torch > $OUT/final.log 2>&1
echo "gpu_run exit $?"
cat $OUT/final/summary.txt | grep -vE "warning" | cut -c1-200
cd $OUT && tar czf final.tgz final final.log && rm -rf final final.log
