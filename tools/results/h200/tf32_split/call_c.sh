#!/usr/bin/env bash
# Third call (two H200s, the session's final build): every GPU test, the pool-on-M lab's checks, then issue 14's
# stream stage with two GPUs (tools/gpu_run.sh ... stream: the main job, bench streamed with 1-3 batches in flight,
# devices 0 against 0,1, the pipeline tests on both devices, the host links' ceiling), and the README's main job
# with only the first GPU visible to the driver (CUDA_VISIBLE_DEVICES=0) beside the plain runs: what initializing
# the second GPU costs the one-GPU job.
source tools/results/h200/device_env.sh
L=.device/lab
cp tools/results/h200/conv_pair/mj_parse.py $OUT/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
$B/gpu_tests --no-version > $OUT/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $OUT/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $OUT/gpu_tests.log | grep -v MESSAGE | head -30
POOLM_MAX_BATCH=1000 $L/conv_poolm_lab --check-only > $OUT/poolm_check.log 2>&1
echo "poolm lab checks exit $?: $(grep -c '^PASS' $OUT/poolm_check.log) PASS, $(grep -c FAIL $OUT/poolm_check.log) FAIL"
STREAM_MS=1000 bash tools/gpu_run.sh $OUT/stream .device/build stream > $OUT/stream.log 2>&1
echo "gpu_run exit $?"
mj() {  # TAG [env...]: the README's main job
  local tag=$1; shift
  env "$@" /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --backend auto \
    --input $D/t10k-images-idx3-ubyte.gz --labels $D/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 \
    --output $OUT/probs.npy --top-k 3 --json --precision auto > $OUT/mj_$tag.log 2>&1
  echo "exit $?: $($TORCH_PYTHON $OUT/mj_parse.py $OUT/mj_$tag.log $tag)"
}
for i in 1 2 3; do mj plain_$i; mj visible0_$i CUDA_VISIBLE_DEVICES=0; done
rm -f $OUT/probs*
for f in $OUT/stream/logs/main_job_*.log; do t=${f##*/main_job_}; $TORCH_PYTHON $OUT/mj_parse.py $f ${t%.log}; done
grep -E "^stream|host|device" $OUT/stream/summary.txt | sed -E 's/exit 0: +[0-9]+ \|//' | cut -c1-200
cd $OUT && tar czf stream.tgz stream stream.log && rm -rf stream
