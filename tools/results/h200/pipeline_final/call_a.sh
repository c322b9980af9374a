#!/usr/bin/env bash
# One call on a machine with two GPUs: tools/gpu_run.sh's stream stage (the README's main job with --precision
# auto and in fixed modes under /usr/bin/time, bench with 1-3 batches in flight on one device, then devices 0
# against 0,1, the pipeline's GPU tests on both devices and the host links' ceiling), then the GPU tests.
source tools/results/h200/device_env.sh
work() {
  nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.max.sm --format=csv,noheader
  bash tools/gpu_run.sh $R/stream .device/build stream > $R/stream.log 2>&1; echo "stream stage exit $?"
  grep -vE "^(revision|===)" $R/stream/summary.txt | cut -c1-260
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -30
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call_a.log
cd $OUT && find r -name "*.npy" -delete && rm -f r/stream/results.tar.gz && tar czf r.tgz r && rm -rf r
