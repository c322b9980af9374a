#!/usr/bin/env bash
# Eleventh call (one H200): the final build (the split Linear's alignment check): the Linear and attention GPU tests,
# every GPU test. Results in r.tgz. Needs .device/build.tgz (tools/stage_device_build.sh).
source tools/results/h200/device_env.sh
timeout 300 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -10
cd $OUT && tar czf r.tgz r && rm -rf r
