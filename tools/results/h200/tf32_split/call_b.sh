#!/usr/bin/env bash
# Second call (one GPU, the same build as call_a): issue 14's stream stage (tools/gpu_run.sh ... stream: the README's
# main job with --precision auto and fixed modes under /usr/bin/time, bench streamed with 1-3 batches in flight).
source tools/results/h200/device_env.sh
bash tools/gpu_run.sh $OUT/stream .device/build stream > $OUT/stream.log 2>&1
echo "gpu_run exit $?"
cp tools/results/h200/conv_pair/mj_parse.py $OUT/
for f in $OUT/stream/logs/main_job_*.log; do t=${f##*/main_job_}; $TORCH_PYTHON $OUT/mj_parse.py $f ${t%.log}; done
grep -E "^stream" $OUT/stream/summary.txt | sed -E 's/exit 0: +[0-9]+ \|//' | cut -c1-200
cd $OUT && tar czf stream.tgz stream stream.log && rm -rf stream
