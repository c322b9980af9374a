#!/usr/bin/env bash
# Session call 4 (one GPU): the main job with the CUDA teardown skipped at exit (std::_Exit after the outputs; tried, not kept) against the
# orderly teardown (IE_FULL_TEARDOWN=1), alternating, --precision auto and fp16, 4 rounds, after one warm-up
# process (this machine's first).
source tools/results/h200/device_env.sh
main() {  # $1 precision, $2 teardown (0/1), $3 tag
  IE_FULL_TEARDOWN=$2 /usr/bin/time -f "wall %e s" timeout 60 $B/infer --config configs/convnet.yaml --backend auto \
    --precision $1 --input $D/t10k-images-idx3-ubyte.gz --labels $D/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 \
    --output $R/probs_$3.npy --top-k 3 --json > $R/main_$3.log 2>&1
  echo "main $1 full_teardown=$2 ($3) exit $?: $(grep -o '"main_s":[0-9.]*' $R/main_$3.log) $(grep -o '"setup_s":[0-9.]*' $R/main_$3.log) $(grep -o 'accuracy: [0-9.]*' $R/main_$3.log) $(grep wall $R/main_$3.log) $(ls -la $R/probs_$3.npy $R/probs_$3_top_k.csv 2>&1 | awk '{print $5}' | tr '\n' ' ')"
}
work() {
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader
main auto 1 first
for i in 1 2 3 4; do
  for p in auto fp16; do
    main $p 0 ${p}_quick_$i
    main $p 1 ${p}_full_$i
  done
done
cmp $R/probs_auto_quick_1.npy $R/probs_auto_full_1.npy && echo "outputs identical"
}
timeout 300 bash -c "$(declare -f work main); B=$B R=$R D=$D; work" 2>&1 | tee $R/call_d.log
rm -f $R/*.npy $R/*.csv
cd $OUT && tar czf r.tgz r && rm -rf r
