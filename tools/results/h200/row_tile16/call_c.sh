#!/usr/bin/env bash
# Session call 3 (one GPU): the batches-in-flight table of the pipeline issue in one run. The README's main job
# first (this machine's first process), --precision auto and fp16 alternating, with the JSON's phases; then
# gpu_run.sh's stream stage (the main job at batch 1000 and 10000, streamed conv net and SSA at 1-3 in flight).
source tools/results/h200/device_env.sh
work() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,persistence_mode --format=csv,noheader
for i in 1 2 3; do
  for p in auto fp16; do
    /usr/bin/time -f "wall %e s" timeout 60 $B/infer --config configs/convnet.yaml --backend auto --precision $p \
      --input $D/t10k-images-idx3-ubyte.gz --labels $D/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 \
      --output /tmp/probs.npy --top-k 3 --json > $R/main_${p}_$i.log 2>&1
    echo "main $p $i exit $?: $(grep -o '"main_s":[0-9.]*' $R/main_${p}_$i.log) $(grep -o '"setup_s":[0-9.]*' $R/main_${p}_$i.log) $(grep -o '"run_s":[0-9.]*' $R/main_${p}_$i.log) $(grep -o '"setup_phases_s":{[^}]*}' $R/main_${p}_$i.log) $(grep -o 'accuracy: [0-9.]*' $R/main_${p}_$i.log) $(grep wall $R/main_${p}_$i.log)"
  done
done
STREAM_MS=800 bash tools/gpu_run.sh $R/stream .device/build stream > $R/stream_stage.log 2>&1
grep -E "main job|stream " $R/stream/summary.txt
}
timeout 560 bash -c "$(declare -f work); B=$B R=$R D=$D; work" 2>&1 | tee $R/call_c.log
cd $OUT && tar czf r.tgz r && rm -rf r
