#!/usr/bin/env bash
# Session call 2: the main job with --precision auto judged against the CPU's fp32, the GPU tests, the streamed
# figures of gpu_run.sh's stream stage (issue table of batches in flight) and the conv net from uint8 images with
# and without scaled_resize, each twice, alternating.
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
rm -rf .device/build; tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
D=.device/data
work() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== the main job"
for i in 1 2 3 4; do
  for p in auto fp16; do
    /usr/bin/time -f "wall %e s" timeout 60 $B/infer --config configs/convnet.yaml --input $D/t10k-images-idx3-ubyte.gz \
      --labels $D/t10k-labels-idx1-ubyte.gz --output /tmp/probs.npy --top-k 3 --precision $p --json > $R/main_${p}_$i.log 2>&1
    echo "main $p $i: $(grep -o '"main_s":[0-9.]*' $R/main_${p}_$i.log) $(grep -o '"setup_phases_s":{[^}]*}' $R/main_${p}_$i.log) $(grep -o 'precision: [a-z0-9]* (auto: [^)]*)' $R/main_${p}_$i.log) $(grep -o 'accuracy: [0-9.]*' $R/main_${p}_$i.log) $(grep wall $R/main_${p}_$i.log)"
  done
done
/usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --backend cpu --input $D/t10k-images-idx3-ubyte.gz \
  --labels $D/t10k-labels-idx1-ubyte.gz --output /tmp/probs_cpu.npy > $R/main_cpu.log 2>&1
echo "main cpu: $(grep -E '^(throughput|accuracy)|wall' $R/main_cpu.log | tr '\n' ' ')"
echo "== GPU tests"
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1; echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -60
echo "== conv net from uint8 images, rule on and off, twice"
for round in 1 2; do
  for off in none scaled_resize; do
    for p in bf16 fp16; do
      IE_DISABLE_FUSIONS=$off $B/bench --config configs/convnet.yaml --raw --paths cuda --precision $p --batches 10000 \
        --in-flight 2 --duration-ms 1000 --json $R/raw_${p}_${off}_$round.json > $R/raw_${p}_${off}_$round.log 2>&1
      echo "raw $p off=$off round $round: $(grep -E '^ +[0-9]+ \|' $R/raw_${p}_${off}_$round.log)"
    done
  done
done
echo "== gpu_run.sh stream stage"
STREAM_MS=1000 bash tools/gpu_run.sh $R/stream .device/build stream > $R/stream_stage.log 2>&1
grep -E "^(main job|stream)" $R/stream/summary.txt
rm -f $R/stream/results.tar.gz $R/stream/logs/probs_*.npy
}
timeout 570 bash -c "$(declare -f work); B=$B R=$R D=$D; work" 2>&1 | tee $R/call_b.log
cd $OUT && tar czf r.tgz r && rm -rf r
