#!/usr/bin/env bash
# The bench table of the fused path in every mode against cuda-reference and PyTorch (same call), both models, with
# the per-op profiles: tools/gpu_run.sh's bench and torch stages on the session's final build.
set -uo pipefail
rm -rf .device/build; tar xzf .device/build.tgz -C .device
BENCH_BATCHES_CONVNET=1,1000,10000,50000 BENCH_BATCHES_SSA=1,512,65536 BENCH_MS=400 \
  timeout 560 bash tools/gpu_run.sh $OUT/run .device/build bench,torch > $OUT/gpu_run.log 2>&1
echo "gpu_run exit $?"
grep -E "^(bench|==|  +[0-9]+ \||convnet|ssa)" $OUT/run/summary.txt | head -80
rm -f $OUT/run/results.tar.gz
cd $OUT && tar czf r.tgz run gpu_run.log && rm -rf run
