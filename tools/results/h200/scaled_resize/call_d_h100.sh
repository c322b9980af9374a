#!/usr/bin/env bash
# Session call 4: the main job's run phase with scaled_resize on and off (alternating, same machine), and the conv
# net from uint8 images at batch 1000 end to end, on and off.
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
rm -rf .device/build; tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
D=.device/data
work() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for i in 1 2 3 4; do
  for off in none scaled_resize; do
    for p in fp16 fp32; do
      [[ $p == fp32 && $i -gt 2 ]] && continue
      IE_DISABLE_FUSIONS=$off /usr/bin/time -f "wall %e s" timeout 60 $B/infer --config configs/convnet.yaml \
        --input $D/t10k-images-idx3-ubyte.gz --labels $D/t10k-labels-idx1-ubyte.gz --output /tmp/probs.npy --top-k 3 \
        --precision $p --json > $R/main_${p}_${off}_$i.log 2>&1
      echo "main $p off=$off $i: $(grep -o '"run_s":[0-9.e-]*' $R/main_${p}_${off}_$i.log) $(grep -o 'accuracy: [0-9.]*' $R/main_${p}_${off}_$i.log) $(grep wall $R/main_${p}_${off}_$i.log)"
    done
  done
done
for round in 1 2; do
  for off in none scaled_resize; do
    IE_DISABLE_FUSIONS=$off $B/bench --config configs/convnet.yaml --raw --paths cuda --precision fp16 --batches 1000 \
      --in-flight 1 --duration-ms 1000 > $R/raw_fp16_1000_${off}_$round.log 2>&1
    echo "raw fp16 1000 off=$off round $round: $(grep -E '^ +[0-9]+ \|' $R/raw_fp16_1000_${off}_$round.log)"
  done
done
IE_DISABLE_FUSIONS=none $B/bench --config configs/convnet.yaml --raw --paths cuda --precision fp16 --batches 1000 --profile > $R/profile_raw_fp16_1000.txt 2>&1
IE_DISABLE_FUSIONS=scaled_resize $B/bench --config configs/convnet.yaml --raw --paths cuda --precision fp16 --batches 1000 --profile > $R/profile_raw_fp16_1000_off.txt 2>&1
grep -E "^[0-9]+ |^total" $R/profile_raw_fp16_1000.txt $R/profile_raw_fp16_1000_off.txt
}
timeout 570 bash -c "$(declare -f work); B=$B R=$R D=$D; work" 2>&1 | tee $R/call_d.log
cd $OUT && tar czf r.tgz r && rm -rf r
