#!/usr/bin/env bash
# Fifth call (the build of call_d): the stream stage of tools/gpu_run.sh on one H200: the main job's wall time (auto,
# fp16, fp32, batch 10000), and bench streamed with 1-3 batches in flight for the conv net from float32 and from uint8
# 28x28 in page-locked host memory (--raw), and the SSA.
source tools/results/h200/device_env.sh
timeout 420 bash tools/gpu_run.sh $OUT/stream .device/build stream > $OUT/stream.log 2>&1
echo "gpu_run exit $?"
grep -vE "warning" $OUT/stream/summary.txt | cut -c1-220
cd $OUT && rm -f stream/results.tar.gz && tar czf r.tgz stream stream.log && rm -rf stream stream.log
