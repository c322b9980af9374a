#!/usr/bin/env bash
# The same stream stage on a one-GPU H200 (tools/gpu_run.sh stream: the README's main job with --precision auto and
# in fixed modes under /usr/bin/time, bench with 1-3 batches in flight), with the engine as of the pool-on-M bulk
# staging: issue 14's one-GPU table from one run.
source tools/results/h200/device_env.sh
work() {
  nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.max.sm --format=csv,noheader
  bash tools/gpu_run.sh $R/stream .device/build stream > $R/stream.log 2>&1; echo "stream stage exit $?"
  grep -vE "^(revision|===)" $R/stream/summary.txt | cut -c1-260
}
timeout 400 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call_b.log
cd $OUT && find r -name "*.npy" -delete && rm -f r/stream/results.tar.gz && tar czf r.tgz r && rm -rf r
