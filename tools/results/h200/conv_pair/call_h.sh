#!/usr/bin/env bash
# Eighth run: issue 14's one-GPU table from one run with the split modules (tools/gpu_run.sh stream: the README's
# main job with --precision auto and fixed modes under /usr/bin/time, bench streamed with 1-3 batches in flight).
source tools/results/h200/device_env.sh
work() {
  nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.max.sm --format=csv,noheader
  bash tools/gpu_run.sh $R/stream .device/build stream > $R/stream.log 2>&1; echo "stream stage exit $?"
  grep -vE "^(revision|===)" $R/stream/summary.txt | cut -c1-300
}
timeout 400 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call_h.log
cd $OUT && find r -name "*.npy" -delete && find r -name "*top_k.csv" -delete && rm -f r/stream/results.tar.gz && tar czf r.tgz r && rm -rf r
